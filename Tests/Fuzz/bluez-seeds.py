#!/usr/bin/env python3
"""Writes the bluez fuzz target's seeds for the lying org.bluez (issue 20) into
Tests/Fuzz/corpus/bluez/lying-*: each a script in the bytes that
Sources/FuzzDecoders/FuzzBlueZ.swift reads (through FuzzValues.swift), encoding one of the
scenarios of Tests/BlueZTests/LyingBlueZTests.swift, so that libFuzzer starts from them
rather than from random bytes alone. FuzzCorpusEndToEndTests checks that each seed makes the
backend say what its scenario is about (FUZZ_SHOW_EVENTS=1 prints the events).

    Tests/Fuzz/bluez-seeds.py          (re)writes the seeds

The encoder follows the reader byte for byte: change one, change the other. What the
script cannot say (a 64 KiB name, 100,000 UUIDs: strings and arrays are short there) stays
with the unit and end-to-end tests.
"""
import os
import struct

# FuzzValues' tables, in order.
PROPERTIES = ["Address", "AddressType", "Name", "Alias", "RSSI", "TxPower", "UUIDs", "ManufacturerData",
              "ServiceData", "AdvertisingFlags", "Appearance", "Connected", "ServicesResolved", "Paired",
              "Bonded", "Trusted", "Blocked", "Powered", "Discovering", "UUID", "Primary", "Flags", "Value",
              "Notifying", "MTU", "Adapter", "Device", "Service", "Characteristic"]
INTERFACES = ["org.bluez.Device1", "org.bluez.Adapter1", "org.bluez.GattService1",
              "org.bluez.GattCharacteristic1", "org.bluez.GattDescriptor1", "org.bluez.Battery1",
              "org.freedesktop.DBus.Properties"]
PATHS = ["/org/bluez/hci0", "/org/bluez/hci0/dev_E4_1C_22_5D_90_11", "/org/bluez/hci0/dev_C0_FF_EE_00_00_01",
         "/org/bluez/hci0/dev_E4_1C_22_5D_90_11/service000a",
         "/org/bluez/hci0/dev_E4_1C_22_5D_90_11/service000a/char000b",
         "/org/bluez/hci0/dev_E4_1C_22_5D_90_11/service000a/char000b/desc000d",
         "/org/bluez/hci1", "/", "/org/bluez", "/org/bluez/hci0/dev_X/a/b/c/d"]
STRINGS = ["E4:1C:22:5D:90:11", "C0:FF:EE:00:00:01", "0000180d-0000-1000-8000-00805f9b34fb",
           "00002a37-0000-1000-8000-00805f9b34fb", "0000feaa-0000-1000-8000-00805f9b34fb", "public", "random",
           "read", "notify", "write", "HRM \x1b[2J", "\u202eevil", "org.bluez", ":1.9", ""]
BASICS = ["y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g"]
SIGNATURES = ["", "s", "a{sv}", "ay", "n", "(ii)"]
DICT_KEYS = ["s", "q", "o", "y", "u"]
ERRORS = ["org.bluez.Error.Failed", "org.bluez.Error.InProgress", "com.example.Unknown", "org.freedesktop.DBus.Error.NoReply"]
OWNERS = ["", ":1.9", ":1.10"]
IDS = ["E4:1C:22:5D:90:11", "C0:FF:EE:00:00:01"]
COMMANDS = ["connect", "disconnect", "read", "setNotify", "stopScan", "startScan", "write", "readDescriptor", "pair", "forget"]


def split(sig):
    """The first complete type of a signature, and the rest."""
    if sig[0] == "a":
        inner, rest = split(sig[1:])
        return "a" + inner, rest
    if sig[0] == "{":
        k, rest = split(sig[1:])
        v, rest = split(rest)
        assert rest[0] == "}"
        return "{" + k + v + "}", rest[1:]
    return sig[0], sig[1:]


class Script:
    def __init__(self):
        self.b = bytearray()
        self.steps = 0

    def byte(self, v):
        self.b.append(v & 0xFF)

    def pick(self, table, value):
        self.byte(table.index(value))

    def wide(self, v):
        self.b += struct.pack(">Q", v & 0xFFFFFFFFFFFFFFFF)

    def string(self, s):
        if s in STRINGS + PROPERTIES:
            self.byte(0)
            self.byte((STRINGS + PROPERTIES).index(s))
        else:
            raw = s.encode()
            assert len(raw) < 24, s
            self.byte(1)
            self.byte(len(raw))
            self.b += raw

    def path(self, p):
        if p in PATHS:
            self.byte(1)
            self.pick(PATHS, p)
        else:
            rest = p[len("/org/bluez/hci0/"):].encode()
            assert p.startswith("/org/bluez/hci0/") and len(rest) < 12, p
            self.byte(0)
            self.byte(len(rest))
            self.b += rest

    def basic(self, t, v):
        if t == "y":
            self.byte(v)
        elif t == "b":
            self.byte(1 if v else 0)
        elif t in "nqiuxt":
            self.wide(v)
        elif t == "d":
            self.b += struct.pack(">d", v)
        elif t == "s":
            self.string(v)
        elif t == "o":
            self.path(v)
        elif t == "g":
            self.pick(SIGNATURES, v)

    def kind(self, t, depth):
        if depth >= 4:
            self.pick(BASICS, t)   # only basic types that deep
        elif t in BASICS:
            self.byte(BASICS.index(t) * 16)
        elif t.startswith("a{"):
            self.byte(11)
            self.pick(DICT_KEYS, t[2])
            self.kind(t[3:-1], depth + 1)
        elif t.startswith("a"):
            self.byte(9)
            self.kind(t[1:], depth + 1)
        elif t == "v":
            self.byte(13)
        else:
            raise ValueError(t)

    def value(self, t, v, depth):
        if t in BASICS:
            self.basic(t, v)
        elif t == "ay":
            assert len(v) < 40
            self.byte(len(v))
            self.b += bytes(v)
        elif t.startswith("a{"):
            key, value = t[2], t[3:-1]
            assert len(v) < 6
            self.byte(len(v))
            for k, x in v:
                if key == "s":
                    if k in PROPERTIES:
                        self.byte(0)
                        self.pick(PROPERTIES, k)
                    else:
                        self.byte(1)
                        self.basic("s", k)
                else:
                    self.basic(key, k)
                self.value(value, x, depth + 1)
        elif t.startswith("a"):
            assert len(v) < 6
            self.byte(len(v))
            for x in v:
                self.value(t[1:], x, depth + 1)
        elif t == "v":
            inner, x = v
            if depth >= 4:
                self.basic("s", x)
            else:
                self.kind(inner, depth + 1)
                self.value(inner, x, depth + 1)

    def any(self, t, v):
        self.kind(t, 1)
        self.value(t, v, 1)

    def properties(self, props):
        assert len(props) < 8
        self.byte(len(props))
        for k, (t, v) in props.items():
            self.pick(PROPERTIES, k)
            self.any(t, v)

    def interfaces(self, ifaces):
        assert 1 <= len(ifaces) <= 3
        self.byte(len(ifaces) - 1)
        for name, props in ifaces.items():
            self.pick(INTERFACES, name)
            self.properties(props)

    def objects(self, objects):
        assert 1 <= len(objects) <= 6
        self.byte(1)                  # not "anything at all"
        self.byte(len(objects) - 1)
        for path, ifaces in objects.items():
            self.path(path)
            self.interfaces(ifaces)

    # The script's steps (FuzzBlueZ.run), at most 64.
    def step(self, op):
        self.steps += 1
        assert self.steps <= 64
        self.byte(op)

    def answer_snapshot(self, objects):
        """The oldest pending call, which must be a GetManagedObjects: this tree."""
        self.step(0)
        self.byte(2)
        self.objects(objects)

    def answer_empty(self):
        self.step(0)
        self.byte(2)

    def answer_error(self, name, message):
        self.step(0)
        self.byte(0)
        self.pick(ERRORS, name)
        self.string(message)

    def changed(self, path, iface, props, invalidated=()):
        self.step(2)
        self.byte(1)                  # a property bag, not anything
        self.properties(props)
        self.byte(1)
        self.byte(len(invalidated))
        for p in invalidated:
            self.pick(PROPERTIES, p)
        self.path(path)
        self.byte(1)                  # the interface as a string
        self.pick(INTERFACES, iface)

    def added(self, path, ifaces):
        self.step(5)
        self.byte(1)
        self.path(path)
        self.byte(1)
        self.interfaces(ifaces)

    def removed(self, path, names):
        self.step(7)
        self.path(path)
        self.byte(len(names))
        for n in names:
            self.pick(INTERFACES, n)

    def owner(self, old, new):
        self.step(8)
        self.pick(OWNERS, old)
        self.pick(OWNERS, new)

    def command(self, name, device=IDS[0], path=PATHS[4]):
        self.step(9)
        self.pick(IDS, device)
        self.pick(PATHS, path)
        self.pick(COMMANDS, name)


ADAPTER = {"org.bluez.Adapter1": {"Powered": ("b", True), "Discovering": ("b", False)}}
E4, C0 = PATHS[1], PATHS[2]


def seeds():
    out = {}

    # Known properties at the wrong D-Bus types, in the snapshot and as changes, again and again.
    s = Script()
    s.answer_snapshot({PATHS[0]: ADAPTER, E4: {"org.bluez.Device1": {
        "Address": ("s", IDS[0]), "RSSI": ("x", 2**63 - 1), "UUIDs": ("u", 7), "Name": ("o", "/org/bluez"),
        "Connected": ("s", "yes"), "TxPower": ("x", -2**63)}}})
    for i in range(4):
        s.changed(E4, "org.bluez.Device1", {"RSSI": ("x", 2**63 - 1 - i)})
        s.changed(E4, "org.bluez.Device1", {"RSSI": ("s", "-40")})
    s.changed(E4, "org.bluez.Device1", {"ManufacturerData": ("ay", [1, 2]), "RSSI": ("i", -40)})
    s.changed(E4, "org.bluez.Device1", {"Paired": ("i", 1), "RSSI": ("n", -41)})
    out["lying-wrong-types"] = s

    # Mandatory properties missing: a device without its Address, an adapter without Powered,
    # a service without a UUID, a characteristic whose UUID is a number.
    s = Script()
    s.answer_snapshot({
        PATHS[0]: {"org.bluez.Adapter1": {"Discovering": ("s", "no")}},
        C0: {"org.bluez.Device1": {"Name": ("s", "no address")}},
        E4: {"org.bluez.Device1": {"Address": ("s", IDS[0]), "Connected": ("b", True), "ServicesResolved": ("b", True)}},
        PATHS[3]: {"org.bluez.GattService1": {"Primary": ("b", True)}},
        PATHS[4]: {"org.bluez.GattCharacteristic1": {"UUID": ("q", 0x2A37), "Flags": ("s", "read")}},
    })
    out["lying-missing-mandatory"] = s

    # Objects under unexpected paths: devices at the root, at /org/bluez, on another adapter;
    # GATT objects too deep to be a device's; changes to all of them.
    s = Script()
    s.answer_snapshot({PATHS[0]: ADAPTER})
    for p in [PATHS[7], PATHS[8], PATHS[6], PATHS[0]]:
        s.added(p, {"org.bluez.Device1": {"Address": ("s", IDS[1])}})
        s.changed(p, "org.bluez.Device1", {"RSSI": ("n", -50)})
    s.added(PATHS[9], {"org.bluez.GattService1": {"UUID": ("s", STRINGS[2])}})
    s.changed(PATHS[9], "org.bluez.Device1", {"RSSI": ("n", -50)})
    s.added("/org/bluez/hci0/serviceFF", {"org.bluez.GattService1": {"UUID": ("s", STRINGS[2])}})
    out["lying-stray-paths"] = s

    # A device that appears and vanishes, then is changed after it left.
    s = Script()
    s.answer_snapshot({PATHS[0]: ADAPTER})
    s.added(E4, {"org.bluez.Device1": {"Address": ("s", IDS[0]), "RSSI": ("n", -50)}})
    s.changed(E4, "org.bluez.Device1", {"RSSI": ("n", -51)})
    s.removed(E4, ["org.bluez.Device1"])
    s.changed(E4, "org.bluez.Device1", {"RSSI": ("n", -52)})
    s.added(E4, {"org.bluez.Device1": {"Address": ("s", IDS[0])}})
    s.removed(E4, ["org.bluez.Device1", "org.bluez.Battery1"])
    out["lying-appear-vanish"] = s

    # Errors of unknown names with escape sequences in their messages: the snapshot fails, a
    # new bluetoothd answers, the discovery filter fails, a Connect is never answered.
    s = Script()
    s.answer_error("com.example.Unknown", "HRM \x1b[2J")
    s.owner(":1.9", ":1.10")
    s.answer_snapshot({PATHS[0]: ADAPTER, E4: {"org.bluez.Device1": {"Address": ("s", IDS[0]), "Name": ("s", "\u202eevil")}}})
    s.answer_error("org.freedesktop.DBus.Error.NoReply", "\x1b]0;pwned\x07")   # SetDiscoveryFilter
    s.command("connect")
    s.command("stopScan")
    out["lying-hostile-errors"] = s

    # The name changes owner while the snapshot is on its way; the stale answer comes last.
    s = Script()
    s.owner(":1.9", ":1.10")
    s.answer_snapshot({PATHS[0]: ADAPTER, E4: {"org.bluez.Device1": {"Address": ("s", IDS[0]), "RSSI": ("n", -50)}}})
    s.answer_snapshot({PATHS[6]: ADAPTER})
    s.changed(E4, "org.bluez.Device1", {"RSSI": ("x", 1)})
    s.owner(":1.10", "")
    out["lying-owner-change"] = s

    # Replies after the caller gave up: a read and a connect asked, bluetoothd leaves, then both
    # answer (one an error, one a value), and it comes back.
    s = Script()
    s.answer_snapshot({PATHS[0]: ADAPTER, E4: {"org.bluez.Device1": {"Address": ("s", IDS[0]), "Connected": ("b", True)}}})
    s.command("connect")
    s.command("read")
    s.owner(":1.9", "")
    s.answer_empty()                  # SetDiscoveryFilter, late
    s.answer_error("org.bluez.Error.Failed", "\x9b31mlate")
    s.answer_empty()
    s.owner("", ":1.10")
    out["lying-late-replies"] = s
    return out


if __name__ == "__main__":
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "bluez")
    for name, script in seeds().items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(bytes(script.b))
        print("%-28s %4d bytes, %2d steps" % (name, len(script.b), script.steps))
