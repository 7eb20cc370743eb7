/*
 * sink: the floor of the peer benchmark (make bench-peers). A plain C libdbus client
 * that does what any BlueZ scanner must do and nothing more: subscribe to org.bluez's
 * object manager and Device1 property changes (three path_namespace rules, as bleak
 * does), read GetManagedObjects, start discovery on hci0, then parse every
 * PropertiesChanged and InterfacesAdded with libdbus's iterators into a table of
 * devices (address path, RSSI, one company's data). When the device named BENCH-END
 * appears it prints
 *   BENCH-END count=<Device1 PropertiesChanged parsed> t_end=<epoch s> cpu_s=<CPU s> devices=<known>
 * and keeps running until it is terminated.
 *
 * build: cc -O2 -o sink sink.c $(pkg-config --cflags --libs dbus-1)
 */
#define _GNU_SOURCE
#include <dbus/dbus.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

struct device {
  char *path; /* NULL: free slot */
  int16_t rssi;
  uint16_t company;
  uint8_t data[32];
  int data_len;
  int named_marker;
};

static struct device *table;
static size_t slots = 4096, used;
static long count;

static uint64_t hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

static struct device *lookup(const char *path, int add);
static void grow(void) {
  struct device *old = table;
  size_t n = slots;
  slots *= 2;
  table = calloc(slots, sizeof *table);
  used = 0;
  for (size_t i = 0; i < n; i++)
    if (old[i].path) {
      struct device *d = lookup(old[i].path, 1);
      char *p = d->path;
      *d = old[i];
      d->path = p;
      free(old[i].path);
    }
  free(old);
}

/* open addressing, linear probing; the table is at most half full */
static struct device *lookup(const char *path, int add) {
  if (add && (used + 1) * 2 > slots) grow();
  for (size_t i = hash(path) & (slots - 1);; i = (i + 1) & (slots - 1)) {
    if (!table[i].path) {
      if (!add) return NULL;
      table[i].path = strdup(path);
      used++;
      return &table[i];
    }
    if (!strcmp(table[i].path, path)) return &table[i];
  }
}

/* a{sv} of Device1 into the device */
static void read_properties(DBusMessageIter *dict, struct device *d) {
  DBusMessageIter e, v, a, me, mv, bytes;
  for (; dbus_message_iter_get_arg_type(dict) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(dict)) {
    const char *key;
    dbus_message_iter_recurse(dict, &e);
    dbus_message_iter_get_basic(&e, &key);
    dbus_message_iter_next(&e);
    dbus_message_iter_recurse(&e, &v);
    int t = dbus_message_iter_get_arg_type(&v);
    if (!strcmp(key, "RSSI") && t == DBUS_TYPE_INT16) {
      dbus_message_iter_get_basic(&v, &d->rssi);
    } else if (!strcmp(key, "Name") && t == DBUS_TYPE_STRING) {
      const char *name;
      dbus_message_iter_get_basic(&v, &name);
      d->named_marker = !strcmp(name, "BENCH-END");
    } else if (!strcmp(key, "ManufacturerData") && t == DBUS_TYPE_ARRAY) {
      dbus_message_iter_recurse(&v, &a);
      if (dbus_message_iter_get_arg_type(&a) != DBUS_TYPE_DICT_ENTRY) continue;
      dbus_message_iter_recurse(&a, &me);
      dbus_message_iter_get_basic(&me, &d->company);
      dbus_message_iter_next(&me);
      dbus_message_iter_recurse(&me, &mv);
      if (dbus_message_iter_get_arg_type(&mv) != DBUS_TYPE_ARRAY) continue;
      const uint8_t *p;
      int n;
      dbus_message_iter_recurse(&mv, &bytes);
      dbus_message_iter_get_fixed_array(&bytes, &p, &n);
      d->data_len = n < 32 ? n : 32;
      memcpy(d->data, p, d->data_len);
    }
  }
}

static double wall(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static void marker_seen(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  printf("BENCH-END count=%ld t_end=%.6f cpu_s=%.4f devices=%zu\n", count, wall(),
         r.ru_utime.tv_sec + r.ru_stime.tv_sec + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6, used);
  fflush(stdout);
}

/* o a{sa{sv}}: one object's interfaces (InterfacesAdded, and each entry of GetManagedObjects) */
static void read_object(DBusMessageIter *it) {
  const char *path;
  DBusMessageIter ifaces, e, props;
  dbus_message_iter_get_basic(it, &path);
  dbus_message_iter_next(it);
  if (dbus_message_iter_get_arg_type(it) != DBUS_TYPE_ARRAY) return;
  dbus_message_iter_recurse(it, &ifaces);
  for (; dbus_message_iter_get_arg_type(&ifaces) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(&ifaces)) {
    const char *name;
    dbus_message_iter_recurse(&ifaces, &e);
    dbus_message_iter_get_basic(&e, &name);
    if (strcmp(name, "org.bluez.Device1")) continue;
    dbus_message_iter_next(&e);
    dbus_message_iter_recurse(&e, &props);
    struct device *d = lookup(path, 1);
    read_properties(&props, d);
    if (d->named_marker) marker_seen();
  }
}

static void handle(DBusMessage *m) {
  DBusMessageIter it, dict;
  if (dbus_message_is_signal(m, "org.freedesktop.DBus.Properties", "PropertiesChanged")) {
    const char *iface;
    if (!dbus_message_iter_init(m, &it) || dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_STRING) return;
    dbus_message_iter_get_basic(&it, &iface);
    if (strcmp(iface, "org.bluez.Device1") || !dbus_message_iter_next(&it)) return;
    struct device *d = lookup(dbus_message_get_path(m), 1);
    dbus_message_iter_recurse(&it, &dict);
    read_properties(&dict, d);
    count++;
  } else if (dbus_message_is_signal(m, "org.freedesktop.DBus.ObjectManager", "InterfacesAdded")) {
    if (dbus_message_iter_init(m, &it) && dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_OBJECT_PATH)
      read_object(&it);
  }
}

static DBusMessage *call(DBusConnection *c, const char *path, const char *iface, const char *member) {
  DBusError err;
  dbus_error_init(&err);
  DBusMessage *m = dbus_message_new_method_call("org.bluez", path, iface, member);
  DBusMessage *r = dbus_connection_send_with_reply_and_block(c, m, 30000, &err);
  dbus_message_unref(m);
  if (!r) {
    fprintf(stderr, "sink: %s: %s\n", member, err.message);
    exit(1);
  }
  return r;
}

int main(void) {
  DBusError err;
  dbus_error_init(&err);
  DBusConnection *c = dbus_bus_get_private(DBUS_BUS_SYSTEM, &err);
  if (!c) {
    fprintf(stderr, "sink: %s\n", err.message);
    return 1;
  }
  table = calloc(slots, sizeof *table);
  static const char *const rules[] = {
    "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesAdded'",
    "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesRemoved'",
    "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
    "path_namespace='/org/bluez'"};
  for (int i = 0; i < 3; i++) {
    dbus_bus_add_match(c, rules[i], &err);
    if (dbus_error_is_set(&err)) {
      fprintf(stderr, "sink: AddMatch: %s\n", err.message);
      return 1;
    }
  }
  DBusMessage *objects = call(c, "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects");
  DBusMessageIter it, all, e;
  dbus_message_iter_init(objects, &it);
  dbus_message_iter_recurse(&it, &all);
  for (; dbus_message_iter_get_arg_type(&all) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(&all)) {
    dbus_message_iter_recurse(&all, &e);
    read_object(&e);
  }
  dbus_message_unref(objects);
  dbus_message_unref(call(c, "/org/bluez/hci0", "org.bluez.Adapter1", "StartDiscovery"));
  /* messages read while waiting for the replies above are already queued */
  for (;;) {
    DBusMessage *m;
    while ((m = dbus_connection_pop_message(c))) {
      handle(m);
      dbus_message_unref(m);
    }
    if (!dbus_connection_read_write(c, -1)) break;
  }
  return 0;
}
