// libdbus-1 for Swift. The DBUS_TYPE_* codes are char-cast macros ((int) 'y') and the
// DBUS_TYPE_*_AS_STRING ones are string literals: neither imports, so they are wrapped
// here. Everything else (functions, enums, DBusMessageIter, DBusError) imports as is.
#ifndef BLEEXPLR_CDBUS_SHIM_H
#define BLEEXPLR_CDBUS_SHIM_H
#include <dbus/dbus.h>

static inline int bx_dbus_type_invalid(void) { return DBUS_TYPE_INVALID; }
static inline int bx_dbus_type_byte(void) { return DBUS_TYPE_BYTE; }
static inline int bx_dbus_type_boolean(void) { return DBUS_TYPE_BOOLEAN; }
static inline int bx_dbus_type_int16(void) { return DBUS_TYPE_INT16; }
static inline int bx_dbus_type_uint16(void) { return DBUS_TYPE_UINT16; }
static inline int bx_dbus_type_int32(void) { return DBUS_TYPE_INT32; }
static inline int bx_dbus_type_uint32(void) { return DBUS_TYPE_UINT32; }
static inline int bx_dbus_type_int64(void) { return DBUS_TYPE_INT64; }
static inline int bx_dbus_type_uint64(void) { return DBUS_TYPE_UINT64; }
static inline int bx_dbus_type_double(void) { return DBUS_TYPE_DOUBLE; }
static inline int bx_dbus_type_string(void) { return DBUS_TYPE_STRING; }
static inline int bx_dbus_type_object_path(void) { return DBUS_TYPE_OBJECT_PATH; }
static inline int bx_dbus_type_signature(void) { return DBUS_TYPE_SIGNATURE; }
static inline int bx_dbus_type_unix_fd(void) { return DBUS_TYPE_UNIX_FD; }
static inline int bx_dbus_type_array(void) { return DBUS_TYPE_ARRAY; }
static inline int bx_dbus_type_variant(void) { return DBUS_TYPE_VARIANT; }
static inline int bx_dbus_type_struct(void) { return DBUS_TYPE_STRUCT; }
static inline int bx_dbus_type_dict_entry(void) { return DBUS_TYPE_DICT_ENTRY; }

static inline int bx_dbus_timeout_use_default(void) { return DBUS_TIMEOUT_USE_DEFAULT; }
static inline int bx_dbus_maximum_array_length(void) { return DBUS_MAXIMUM_ARRAY_LENGTH; }

// dbus_message_iter_append_basic takes a pointer to the value; for strings that is a
// pointer to the char pointer, which is awkward from Swift.
static inline dbus_bool_t bx_dbus_append_string(DBusMessageIter *iter, int type, const char *s) {
    return dbus_message_iter_append_basic(iter, type, &s);
}
static inline dbus_bool_t bx_dbus_append_bytes(DBusMessageIter *iter, const unsigned char *bytes, int n) {
    return dbus_message_iter_append_fixed_array(iter, DBUS_TYPE_BYTE, &bytes, n);
}
static inline const char *bx_dbus_get_string(DBusMessageIter *iter) {
    const char *s = NULL;
    dbus_message_iter_get_basic(iter, &s);
    return s;
}
static inline const unsigned char *bx_dbus_get_bytes(DBusMessageIter *iter, int *n) {
    const unsigned char *bytes = NULL;
    *n = 0;
    dbus_message_iter_get_fixed_array(iter, &bytes, n);
    return bytes;
}
#endif
