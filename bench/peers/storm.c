/*
 * storm: bleexplr's fake org.bluez for the peer benchmark (make bench-peers).
 *
 * On the bus named by DBUS_SYSTEM_BUS_ADDRESS it owns org.bluez and exports what a
 * BlueZ 5.66 client expects to find: the object manager at "/", /org/bluez with
 * AgentManager1 and ProfileManager1, the adapter /org/bluez/hci0 and D devices
 * /org/bluez/hci0/dev_C0_FF_EE_XX_XX_XX. It answers GetManagedObjects, Properties
 * Get/GetAll/Set, the Adapter1 discovery calls, AgentManager1 and Introspect.
 *
 * Protocol with the driver (bench/peers/bench-peers.py), one line each on stdout:
 *   READY          the name is owned and the tree exported
 *   ARMED          the first StartDiscovery arrived (a consumer has subscribed)
 *   DONE k=v ...   after "GO" on stdin: the storm is sent and the bus daemon has
 *                  read all of it (a round trip to the daemon after the last signal)
 * The storm: N PropertiesChanged(org.bluez.Device1, {RSSI, ManufacturerData}) round
 * robin over the devices, every one changing both values, then InterfacesAdded of
 * the marker device named BENCH-END. Devices the tree did not list at the start
 * (--announce K: the last K) are first announced by InterfacesAdded, as BlueZ does
 * for a device it discovers. --rate R paces the storm at R signals a second (sleeping
 * between slices of a millisecond's worth); 0 sends as fast as the socket takes them.
 *
 * The signals are marshalled by libdbus once per device; the storm patches the serial
 * (the header's bytes 8-11), the RSSI and the data bytes in place and writes them to
 * the connection's socket in large writes, so that the emitter costs almost nothing and
 * the consumers, not the emitter, are what is measured. libdbus's own queue is flushed
 * before each write so that messages never interleave.
 *
 * build: cc -O2 -o storm storm.c $(pkg-config --cflags --libs dbus-1)
 */
#define _GNU_SOURCE
#include <dbus/dbus.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define ADAPTER "/org/bluez/hci0"
#define DATA_LEN 20
#define MARKER_NAME "BENCH-END"
#define MARKER_INDEX 0xFFFFFF

static DBusConnection *bus;
static int devices = 1000, announce = 0;
static long signals = 100000;
static double rate = 0;
static int discovering, armed;
static uint32_t next_serial = 0x40000000u; /* far above the serials libdbus hands out */

static void fail(const char *what) {
  fprintf(stderr, "storm: %s\n", what);
  exit(2);
}

static double wall(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static double cpu(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return r.ru_utime.tv_sec + r.ru_stime.tv_sec + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

/* Device i: its address C0:FF:EE:xx:xx:xx and its object path. */
static void device_address(int i, char out[18]) {
  snprintf(out, 18, "C0:FF:EE:%02X:%02X:%02X", (i >> 16) & 0xFF, (i >> 8) & 0xFF, i & 0xFF);
}
static void device_path(int i, char out[64]) {
  char a[18];
  device_address(i, a);
  for (char *c = a; *c; c++) if (*c == ':') *c = '_';
  snprintf(out, 64, ADAPTER "/dev_%s", a);
}
static uint16_t company(int i) {
  static const uint16_t ids[] = {0x004C, 0x0006, 0x0075, 0x0499, 0x00E0};
  return ids[i % 5];
}
static int16_t rssi_of(long seq) { return (int16_t)(-40 - (seq * 7) % 60); }
static void data_of(long seq, int i, uint8_t out[DATA_LEN]) {
  for (int k = 0; k < DATA_LEN; k++) out[k] = (uint8_t)(seq * 31 + i + k * 17);
  memcpy(out, &seq, 4); /* a counter: no two signals of a device carry the same data */
}

/* ---- a{sv} entries ---- */
typedef void (*put_fn)(DBusMessageIter *, const void *);
static void entry(DBusMessageIter *dict, const char *key, const char *sig, put_fn put, const void *v) {
  DBusMessageIter e, var;
  dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &e);
  dbus_message_iter_append_basic(&e, DBUS_TYPE_STRING, &key);
  dbus_message_iter_open_container(&e, DBUS_TYPE_VARIANT, sig, &var);
  put(&var, v);
  dbus_message_iter_close_container(&e, &var);
  dbus_message_iter_close_container(dict, &e);
}
static void put_s(DBusMessageIter *i, const void *v) { dbus_message_iter_append_basic(i, DBUS_TYPE_STRING, &v); }
static void put_o(DBusMessageIter *i, const void *v) { dbus_message_iter_append_basic(i, DBUS_TYPE_OBJECT_PATH, &v); }
static void put_b(DBusMessageIter *i, const void *v) { dbus_message_iter_append_basic(i, DBUS_TYPE_BOOLEAN, v); }
static void put_u(DBusMessageIter *i, const void *v) { dbus_message_iter_append_basic(i, DBUS_TYPE_UINT32, v); }
static void put_n(DBusMessageIter *i, const void *v) { dbus_message_iter_append_basic(i, DBUS_TYPE_INT16, v); }
static void put_flags(DBusMessageIter *i, const void *v) { /* ay of one byte */
  DBusMessageIter a;
  dbus_message_iter_open_container(i, DBUS_TYPE_ARRAY, "y", &a);
  dbus_message_iter_append_basic(&a, DBUS_TYPE_BYTE, v);
  dbus_message_iter_close_container(i, &a);
}
static void put_as(DBusMessageIter *i, const void *v) {
  DBusMessageIter a;
  dbus_message_iter_open_container(i, DBUS_TYPE_ARRAY, "s", &a);
  for (const char *const *s = v; *s; s++) dbus_message_iter_append_basic(&a, DBUS_TYPE_STRING, s);
  dbus_message_iter_close_container(i, &a);
}
struct mfg { uint16_t id; const uint8_t *bytes; int len; };
static void put_mfg(DBusMessageIter *i, const void *v) {
  const struct mfg *m = v;
  DBusMessageIter a, e, var, b;
  dbus_message_iter_open_container(i, DBUS_TYPE_ARRAY, "{qv}", &a);
  dbus_message_iter_open_container(&a, DBUS_TYPE_DICT_ENTRY, NULL, &e);
  dbus_message_iter_append_basic(&e, DBUS_TYPE_UINT16, &m->id);
  dbus_message_iter_open_container(&e, DBUS_TYPE_VARIANT, "ay", &var);
  dbus_message_iter_open_container(&var, DBUS_TYPE_ARRAY, "y", &b);
  dbus_message_iter_append_fixed_array(&b, DBUS_TYPE_BYTE, &m->bytes, m->len);
  dbus_message_iter_close_container(&var, &b);
  dbus_message_iter_close_container(&e, &var);
  dbus_message_iter_close_container(&a, &e);
  dbus_message_iter_close_container(i, &a);
}

/* ---- the object tree ---- */
static const char *const no_strings[] = {NULL};
static const char *const adapter_uuids[] = {"00001801-0000-1000-8000-00805f9b34fb",
  "00001800-0000-1000-8000-00805f9b34fb", "0000110e-0000-1000-8000-00805f9b34fb", NULL};
static const char *const roles[] = {"central", "peripheral", NULL};
static const char *const filters[] = {"UUIDs", "RSSI", "Pathloss", "Transport", "DuplicateData",
  "Discoverable", "Pattern", NULL};

static void adapter_props(DBusMessageIter *d, const char *only) {
  const dbus_bool_t yes = TRUE, no = FALSE, disc = discovering ? TRUE : FALSE;
  const uint32_t cls = 0x7c010c, timeout = 180, zero = 0;
#define P(key, sig, fn, v) if (!only || !strcmp(only, key)) entry(d, key, sig, fn, v)
  P("Address", "s", put_s, "00:1A:7D:DA:71:13");
  P("AddressType", "s", put_s, "public");
  P("Name", "s", put_s, "bench");
  P("Alias", "s", put_s, "bench");
  P("Class", "u", put_u, &cls);
  P("Powered", "b", put_b, &yes);
  P("Discoverable", "b", put_b, &no);
  P("DiscoverableTimeout", "u", put_u, &timeout);
  P("Pairable", "b", put_b, &yes);
  P("PairableTimeout", "u", put_u, &zero);
  P("Discovering", "b", put_b, &disc);
  P("UUIDs", "as", put_as, adapter_uuids);
  P("Modalias", "s", put_s, "usb:v1D6Bp0246d0542");
  P("Roles", "as", put_as, roles);
  P("ExperimentalFeatures", "as", put_as, no_strings);
}

static void device_props(DBusMessageIter *d, int i, const char *only) {
  char addr[18], name[32];
  const dbus_bool_t no = FALSE;
  const int16_t rssi = rssi_of(i);
  const uint8_t flags = 0x06;
  uint8_t bytes[DATA_LEN];
  data_of(0, i, bytes);
  struct mfg m = {company(i), bytes, DATA_LEN};
  if (i == MARKER_INDEX) {
    snprintf(addr, sizeof addr, "FF:FF:FF:FF:FF:FF");
    snprintf(name, sizeof name, MARKER_NAME);
  } else {
    device_address(i, addr);
    snprintf(name, sizeof name, "storm-%d", i);
  }
  const char *a = addr, *n = name;
  P("Address", "s", put_s, a);
  P("AddressType", "s", put_s, "random");
  P("Name", "s", put_s, n);
  P("Alias", "s", put_s, n);
  P("Paired", "b", put_b, &no);
  P("Bonded", "b", put_b, &no);
  P("Trusted", "b", put_b, &no);
  P("Blocked", "b", put_b, &no);
  P("LegacyPairing", "b", put_b, &no);
  P("RSSI", "n", put_n, &rssi);
  P("Connected", "b", put_b, &no);
  P("UUIDs", "as", put_as, no_strings);
  P("Adapter", "o", put_o, ADAPTER);
  if (i != MARKER_INDEX) P("ManufacturerData", "a{qv}", put_mfg, &m);
  P("ServicesResolved", "b", put_b, &no);
  P("AdvertisingFlags", "ay", put_flags, &flags);
#undef P
}

/* a{sa{sv}}: the interfaces of one object, as GetManagedObjects and InterfacesAdded carry them */
enum object { ROOT, ADAPTER_OBJECT, DEVICE };
static void interfaces(DBusMessageIter *ifaces, enum object o, int i) {
  static const char *const standard[] = {"org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Properties"};
  DBusMessageIter e, props;
  const char *names[3] = {0};
  if (o == ROOT) { names[0] = "org.bluez.AgentManager1"; names[1] = "org.bluez.ProfileManager1"; }
  if (o == ADAPTER_OBJECT) names[0] = "org.bluez.Adapter1";
  if (o == DEVICE) names[0] = "org.bluez.Device1";
  for (int k = 0; k < 2; k++) {
    dbus_message_iter_open_container(ifaces, DBUS_TYPE_DICT_ENTRY, NULL, &e);
    dbus_message_iter_append_basic(&e, DBUS_TYPE_STRING, &standard[k]);
    dbus_message_iter_open_container(&e, DBUS_TYPE_ARRAY, "{sv}", &props);
    dbus_message_iter_close_container(&e, &props);
    dbus_message_iter_close_container(ifaces, &e);
  }
  for (int k = 0; names[k]; k++) {
    dbus_message_iter_open_container(ifaces, DBUS_TYPE_DICT_ENTRY, NULL, &e);
    dbus_message_iter_append_basic(&e, DBUS_TYPE_STRING, &names[k]);
    dbus_message_iter_open_container(&e, DBUS_TYPE_ARRAY, "{sv}", &props);
    if (o == ADAPTER_OBJECT) adapter_props(&props, NULL);
    if (o == DEVICE) device_props(&props, i, NULL);
    dbus_message_iter_close_container(&e, &props);
    dbus_message_iter_close_container(ifaces, &e);
  }
}

static void object(DBusMessageIter *objects, const char *path, enum object o, int i) {
  DBusMessageIter e, ifaces;
  dbus_message_iter_open_container(objects, DBUS_TYPE_DICT_ENTRY, NULL, &e);
  dbus_message_iter_append_basic(&e, DBUS_TYPE_OBJECT_PATH, &path);
  dbus_message_iter_open_container(&e, DBUS_TYPE_ARRAY, "{sa{sv}}", &ifaces);
  interfaces(&ifaces, o, i);
  dbus_message_iter_close_container(&e, &ifaces);
  dbus_message_iter_close_container(objects, &e);
}

static DBusMessage *managed_objects(DBusMessage *call) {
  DBusMessage *r = dbus_message_new_method_return(call);
  DBusMessageIter it, objects;
  char path[64];
  dbus_message_iter_init_append(r, &it);
  dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{oa{sa{sv}}}", &objects);
  object(&objects, "/org/bluez", ROOT, 0);
  object(&objects, ADAPTER, ADAPTER_OBJECT, 0);
  for (int i = 0; i < devices - announce; i++) {
    device_path(i, path);
    object(&objects, path, DEVICE, i);
  }
  dbus_message_iter_close_container(&it, &objects);
  return r;
}

static DBusMessage *interfaces_added(int i) {
  char path[64];
  if (i == MARKER_INDEX) snprintf(path, sizeof path, ADAPTER "/dev_FF_FF_FF_FF_FF_FF");
  else device_path(i, path);
  DBusMessage *s = dbus_message_new_signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded");
  DBusMessageIter it, ifaces;
  const char *p = path;
  dbus_message_iter_init_append(s, &it);
  dbus_message_iter_append_basic(&it, DBUS_TYPE_OBJECT_PATH, &p);
  dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sa{sv}}", &ifaces);
  interfaces(&ifaces, DEVICE, i);
  dbus_message_iter_close_container(&it, &ifaces);
  return s;
}

/* PropertiesChanged(iface, {props}, []) on path, with `fill` writing the changed entries */
static DBusMessage *properties_changed(const char *path, const char *iface, void (*fill)(DBusMessageIter *, int), int i) {
  DBusMessage *s = dbus_message_new_signal(path, "org.freedesktop.DBus.Properties", "PropertiesChanged");
  DBusMessageIter it, d, inv;
  dbus_message_iter_init_append(s, &it);
  dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &iface);
  dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &d);
  fill(&d, i);
  dbus_message_iter_close_container(&it, &d);
  dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "s", &inv);
  dbus_message_iter_close_container(&it, &inv);
  return s;
}
static void discovering_entry(DBusMessageIter *d, int i) { (void)i; adapter_props(d, "Discovering"); }

/* ---- method calls ---- */
static const char introspection[] =
  "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\" "
  "\"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\"><node>"
  "<interface name=\"org.freedesktop.DBus.Introspectable\"><method name=\"Introspect\">"
  "<arg name=\"xml\" type=\"s\" direction=\"out\"/></method></interface>"
  "<interface name=\"org.freedesktop.DBus.ObjectManager\"><method name=\"GetManagedObjects\">"
  "<arg name=\"objects\" type=\"a{oa{sa{sv}}}\" direction=\"out\"/></method>"
  "<signal name=\"InterfacesAdded\"><arg name=\"object\" type=\"o\"/>"
  "<arg name=\"interfaces\" type=\"a{sa{sv}}\"/></signal>"
  "<signal name=\"InterfacesRemoved\"><arg name=\"object\" type=\"o\"/>"
  "<arg name=\"interfaces\" type=\"as\"/></signal></interface></node>";

/* the device index of a path of ours, -1 if it is not one */
static int device_index(const char *path) {
  unsigned a, b, c;
  if (!strcmp(path, ADAPTER "/dev_FF_FF_FF_FF_FF_FF")) return MARKER_INDEX;
  if (sscanf(path, ADAPTER "/dev_C0_FF_EE_%2X_%2X_%2X", &a, &b, &c) != 3) return -1;
  int i = (int)((a << 16) | (b << 8) | c);
  return i < devices ? i : -1;
}

static DBusMessage *properties_call(DBusMessage *m, const char *member) {
  const char *iface = NULL, *name = NULL;
  const char *path = dbus_message_get_path(m);
  int dev = device_index(path);
  int is_adapter = !strcmp(path, ADAPTER);
  DBusMessageIter it, d;
  dbus_message_iter_init(m, &it);
  if (dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_STRING) dbus_message_iter_get_basic(&it, &iface);
  if (dbus_message_iter_next(&it) && dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_STRING)
    dbus_message_iter_get_basic(&it, &name);
  if (!iface || (!is_adapter && dev < 0))
    return dbus_message_new_error(m, DBUS_ERROR_UNKNOWN_OBJECT, "no such object");
  if (!strcmp(member, "Set")) return dbus_message_new_method_return(m); /* accepted, ignored */
  DBusMessage *r = dbus_message_new_method_return(m);
  dbus_message_iter_init_append(r, &it);
  if (!strcmp(member, "GetAll")) {
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &d);
    if (is_adapter && !strcmp(iface, "org.bluez.Adapter1")) adapter_props(&d, NULL);
    if (dev >= 0 && !strcmp(iface, "org.bluez.Device1")) device_props(&d, dev, NULL);
    dbus_message_iter_close_container(&it, &d);
    return r;
  }
  /* Get: the value alone, taken from the one-entry dictionary the tree would give */
  DBusMessage *tmp = dbus_message_new_method_return(m);
  DBusMessageIter t, td, te, tv, out;
  dbus_message_iter_init_append(tmp, &t);
  dbus_message_iter_open_container(&t, DBUS_TYPE_ARRAY, "{sv}", &td);
  if (name && is_adapter) adapter_props(&td, name);
  if (name && dev >= 0) device_props(&td, dev, name);
  dbus_message_iter_close_container(&t, &td);
  dbus_message_iter_init(tmp, &t);
  dbus_message_iter_recurse(&t, &td);
  if (dbus_message_iter_get_arg_type(&td) != DBUS_TYPE_DICT_ENTRY) {
    dbus_message_unref(tmp);
    dbus_message_unref(r);
    return dbus_message_new_error(m, "org.freedesktop.DBus.Error.InvalidArgs", "no such property");
  }
  dbus_message_iter_recurse(&td, &te);
  dbus_message_iter_next(&te);
  dbus_message_iter_recurse(&te, &tv);
  char *sig = dbus_message_iter_get_signature(&tv);
  dbus_message_iter_open_container(&it, DBUS_TYPE_VARIANT, sig, &out);
  dbus_free(sig);
  /* copy the value: the tree only uses basic types, string arrays, bytes and a{qv} */
  int type = dbus_message_iter_get_arg_type(&tv);
  if (dbus_type_is_basic(type)) {
    DBusBasicValue v;
    dbus_message_iter_get_basic(&tv, &v);
    dbus_message_iter_append_basic(&out, type, &v);
  } else {
    dbus_message_iter_close_container(&it, &out);
    dbus_message_unref(tmp);
    dbus_message_unref(r);
    return dbus_message_new_error(m, "org.freedesktop.DBus.Error.NotSupported", "Get of a container: use GetAll");
  }
  dbus_message_iter_close_container(&it, &out);
  dbus_message_unref(tmp);
  return r;
}

static void send_and_free(DBusMessage *m) {
  if (!m) fail("out of memory");
  dbus_connection_send(bus, m, NULL);
  dbus_message_unref(m);
}

static DBusHandlerResult on_message(DBusConnection *c, DBusMessage *m, void *u) {
  (void)c; (void)u;
  if (dbus_message_get_type(m) != DBUS_MESSAGE_TYPE_METHOD_CALL) return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
  const char *iface = dbus_message_get_interface(m), *member = dbus_message_get_member(m);
  const char *path = dbus_message_get_path(m);
  if (!member || !path) return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
  if (!iface) iface = "";
  DBusMessage *r = NULL;
  if (!strcmp(member, "GetManagedObjects") && !strcmp(path, "/")) r = managed_objects(m);
  else if (!strcmp(member, "Introspect")) {
    r = dbus_message_new_method_return(m);
    const char *x = introspection;
    dbus_message_append_args(r, DBUS_TYPE_STRING, &x, DBUS_TYPE_INVALID);
  } else if (!strcmp(iface, "org.freedesktop.DBus.Properties")) r = properties_call(m, member);
  else if (!strcmp(iface, "org.bluez.Adapter1") && !strcmp(path, ADAPTER)) {
    if (!strcmp(member, "StartDiscovery") || !strcmp(member, "StopDiscovery")) {
      int start = !strcmp(member, "StartDiscovery");
      send_and_free(dbus_message_new_method_return(m));
      if (discovering != start) {
        discovering = start;
        send_and_free(properties_changed(ADAPTER, "org.bluez.Adapter1", discovering_entry, 0));
      }
      dbus_connection_flush(bus);
      if (start && !armed) { armed = 1; printf("ARMED\n"); fflush(stdout); }
      return DBUS_HANDLER_RESULT_HANDLED;
    }
    if (!strcmp(member, "GetDiscoveryFilters")) {
      r = dbus_message_new_method_return(m);
      DBusMessageIter it;
      dbus_message_iter_init_append(r, &it);
      put_as(&it, filters);
    } else if (!strcmp(member, "SetDiscoveryFilter") || !strcmp(member, "RemoveDevice"))
      r = dbus_message_new_method_return(m);
  } else if (!strcmp(iface, "org.bluez.AgentManager1") || !strcmp(iface, "org.bluez.ProfileManager1"))
    r = dbus_message_new_method_return(m);
  if (!r) {
    fprintf(stderr, "storm: unknown call %s.%s on %s\n", iface, member, path);
    r = dbus_message_new_error(m, DBUS_ERROR_UNKNOWN_METHOD, "not in the fake org.bluez");
  }
  send_and_free(r);
  return DBUS_HANDLER_RESULT_HANDLED;
}

/* ---- the storm ---- */
struct signal_bytes { uint8_t *bytes; int len, rssi_at, data_at; };
static struct signal_bytes *marshalled;

static int find_once(const uint8_t *hay, int n, const void *needle, int len) {
  const uint8_t *p = memmem(hay, n, needle, len);
  if (!p || memmem(p + 1, n - (p - hay) - 1, needle, len)) return -1;
  return (int)(p - hay);
}

static const uint8_t data_sentinel[DATA_LEN] = {0xA7, 0x3C, 0x91, 0x5E, 0xD2, 0x08, 0x6B, 0xF4, 0x1D, 0xC6,
                                                0x72, 0xB9, 0x2E, 0x85, 0x4F, 0xE3, 0x17, 0xAA, 0x60, 0xDB};
static const int16_t rssi_sentinel = 0x5A3B; /* no real RSSI: found once in the marshalled bytes */
static int sentinel_device;
static void storm_entries(DBusMessageIter *d, int i) {
  (void)i;
  struct mfg m = {company(sentinel_device), data_sentinel, DATA_LEN};
  entry(d, "RSSI", "n", put_n, &rssi_sentinel);
  entry(d, "ManufacturerData", "a{qv}", put_mfg, &m);
}

static void marshal_storm(void) {
  marshalled = calloc(devices, sizeof *marshalled);
  if (!marshalled) fail("out of memory");
  for (int i = 0; i < devices; i++) {
    char path[64];
    char *buf;
    device_path(i, path);
    sentinel_device = i;
    DBusMessage *s = properties_changed(path, "org.bluez.Device1", storm_entries, i);
    dbus_message_set_serial(s, 1);
    if (!dbus_message_marshal(s, &buf, &marshalled[i].len)) fail("marshal");
    dbus_message_unref(s);
    struct signal_bytes *b = &marshalled[i];
    b->bytes = malloc(b->len);
    memcpy(b->bytes, buf, b->len);
    dbus_free(buf);
    /* the serial's place is the protocol's; the values' places are found by their sentinels */
    const uint16_t one = 1;
    if (b->bytes[0] != (*(const uint8_t *)&one ? 'l' : 'B')) fail("byte order"); /* patched in host order */
    b->rssi_at = find_once(b->bytes, b->len, &rssi_sentinel, 2);
    b->data_at = find_once(b->bytes, b->len, data_sentinel, DATA_LEN);
    if (b->rssi_at < 0 || b->data_at < 0) fail("cannot place RSSI and data in the marshalled signal");
  }
}

static int socket_fd(void) {
  int fd = -1;
  if (!dbus_connection_get_socket(bus, &fd) || fd < 0) fail("no socket");
  return fd;
}

static void write_all(int fd, const uint8_t *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w > 0) { p += w; n -= (size_t)w; continue; }
    if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
      struct pollfd pf = {fd, POLLOUT, 0};
      poll(&pf, 1, -1); /* the daemon is behind: wait until the socket takes more */
      continue;
    }
    fail("write to the bus failed");
  }
}

/* Appends a whole libdbus message to the batch (the announcements of new devices). */
static void append_message(uint8_t **out, size_t *used, size_t *cap, DBusMessage *m) {
  char *buf;
  int len;
  dbus_message_set_serial(m, next_serial++);
  if (!dbus_message_marshal(m, &buf, &len)) fail("marshal");
  if (*used + len > *cap) { *cap = (*used + len) * 2; *out = realloc(*out, *cap); if (!*out) fail("out of memory"); }
  memcpy(*out + *used, buf, len);
  *used += len;
  dbus_free(buf);
  dbus_message_unref(m);
}

static void sleep_until(double t) {
  struct timespec ts = {(time_t)t, (long)((t - (time_t)t) * 1e9)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
}
static double mono(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static void storm(void) {
  int fd = socket_fd();
  size_t cap = 256 * 1024, used = 0;
  uint8_t *out = malloc(cap);
  uint8_t *announced = calloc(devices, 1);
  if (!out || !announced) fail("out of memory");
  for (int i = 0; i < devices - announce; i++) announced[i] = 1;
  /* paced: a slice is a millisecond's worth of signals; fast: 64 KiB or more a write */
  long slice = rate > 0 ? (long)(rate / 1000 > 1 ? rate / 1000 : 1) : signals;
  double slice_s = rate > 0 ? slice / rate : 0;
  double c0 = cpu(), t0 = wall(), m0 = mono();
  dbus_connection_flush(bus);
  for (long seq = 0; seq < signals;) {
    long end = seq + slice < signals ? seq + slice : signals;
    for (; seq < end; seq++) {
      int i = (int)(seq % devices);
      if (!announced[i]) { announced[i] = 1; append_message(&out, &used, &cap, interfaces_added(i)); }
      struct signal_bytes *b = &marshalled[i];
      if (used + b->len > cap) { cap *= 2; out = realloc(out, cap); if (!out) fail("out of memory"); }
      uint8_t *m = out + used;
      memcpy(m, b->bytes, b->len);
      uint32_t serial = next_serial++;
      int16_t r = rssi_of(seq + i);
      memcpy(m + 8, &serial, 4);
      memcpy(m + b->rssi_at, &r, 2);
      data_of(seq, i, m + b->data_at);
      used += b->len;
      if (used >= 64 * 1024) { write_all(fd, out, used); used = 0; }
    }
    if (used) { write_all(fd, out, used); used = 0; }
    if (rate > 0) sleep_until(m0 + (double)seq / slice * slice_s);
  }
  append_message(&out, &used, &cap, interfaces_added(MARKER_INDEX));
  write_all(fd, out, used);
  double t_sent = wall();
  /* the daemon reads a connection's messages in order: its reply comes after it has read them all */
  DBusMessage *ping = dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                   "org.freedesktop.DBus.Peer", "Ping");
  DBusMessage *pong = dbus_connection_send_with_reply_and_block(bus, ping, 600000, NULL);
  dbus_message_unref(ping);
  if (pong) dbus_message_unref(pong);
  double t1 = wall();
  printf("DONE signals=%ld devices=%d announced=%d rate=%.0f t_start=%.6f t_sent=%.6f t_end=%.6f cpu_s=%.4f\n",
         signals, devices, announce, rate, t0, t_sent, t1, cpu() - c0);
  fflush(stdout);
  free(out);
  free(announced);
}

int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--devices") && a + 1 < argc) devices = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--signals") && a + 1 < argc) signals = atol(argv[++a]);
    else if (!strcmp(argv[a], "--rate") && a + 1 < argc) rate = atof(argv[++a]);
    else if (!strcmp(argv[a], "--announce") && a + 1 < argc) announce = atoi(argv[++a]);
    else {
      fprintf(stderr, "usage: storm [--devices D] [--signals N] [--rate R] [--announce K]\n");
      return 2;
    }
  }
  if (devices < 1 || devices > 0xFFFFFE || signals < 0 || rate < 0 || announce < 0 || announce > devices)
    fail("devices 1..16777214, signals >= 0, rate >= 0, 0 <= announce <= devices");
  DBusError err;
  dbus_error_init(&err);
  bus = dbus_bus_get_private(DBUS_BUS_SYSTEM, &err);
  if (!bus) fail(err.message);
  dbus_connection_set_exit_on_disconnect(bus, FALSE);
  if (dbus_bus_request_name(bus, "org.bluez", DBUS_NAME_FLAG_DO_NOT_QUEUE, &err) != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER)
    fail("cannot own org.bluez");
  dbus_connection_add_filter(bus, on_message, NULL, NULL);
  marshal_storm();
  printf("READY\n");
  fflush(stdout);
  /* serve calls; "GO" on stdin starts the storm, end of stdin ends the emitter */
  int fd = socket_fd();
  char line[64];
  size_t have = 0;
  for (;;) {
    /* flushing reads too: what it queued must be dispatched before poll waits on the socket */
    do {
      while (dbus_connection_dispatch(bus) == DBUS_DISPATCH_DATA_REMAINS) {}
      dbus_connection_flush(bus);
    } while (dbus_connection_get_dispatch_status(bus) == DBUS_DISPATCH_DATA_REMAINS);
    struct pollfd p[2] = {{fd, POLLIN, 0}, {0, POLLIN, 0}};
    if (poll(p, 2, -1) < 0 && errno != EINTR) fail("poll");
    if (p[0].revents) {
      if (!dbus_connection_read_write(bus, 0)) break; /* disconnected */
    }
    if (p[1].revents) {
      ssize_t n = read(0, line + have, sizeof line - 1 - have);
      if (n <= 0) break;
      have += (size_t)n;
      line[have] = 0;
      char *nl;
      while ((nl = strchr(line, '\n'))) {
        *nl = 0;
        if (!strcmp(line, "GO")) storm();
        memmove(line, nl + 1, have - (nl + 1 - line) + 1);
        have -= (size_t)(nl + 1 - line);
      }
      if (have == sizeof line - 1) have = 0;
    }
  }
  return 0;
}
