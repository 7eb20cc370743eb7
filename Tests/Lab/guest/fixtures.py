#!/usr/bin/python3
"""bleexplr lab fixture peripherals. Runs INSIDE the lab VM (started by stage2, log: log/fixtures.log).

Every fixture has its own virtual controller, hence its own address, GATT database and GAP name
(one adapter = one GATT database in bluetoothd: fixtures sharing a controller would show each
other's services and the same address). Layout (see FIXTURES below):

  hci2  "Lab iTag"     FFE0/FFE1 notify (press -> 01), Immediate Alert 1802/2A06 write, Battery 180F/2A19
  hci3  "Lab Stream"   128-bit stream service: notify char sends the payload in 20-byte chunks, then "EOM"
  hci4  "Lab Dropper"  connectable; drops the link (peripheral-side Disconnect) on command; gains or loses
                       a Secure DFU service (FE59) on command: a database that changes while connected
  hci5  iBeacon        non-connectable, Apple 0x004C 02 15 UUID major minor power
  hci6  Eddystone-URL  non-connectable, service data FEAA 10 ...

Control: D-Bus service org.bleexplr.Lab at /org/bleexplr/Lab, interface org.bleexplr.Lab.Fixtures1, on
the VM's system bus (so reachable from the host over the lab's TCP bus). `python3 fixtures.py ctl ...`
is a small command-line client for it (used by `lab.sh fixture ...`).
"""
import os, sys, time
import dbus, dbus.service, dbus.mainloop.glib
from gi.repository import GLib

BLUEZ = 'org.bluez'
OM, PROPS = 'org.freedesktop.DBus.ObjectManager', 'org.freedesktop.DBus.Properties'
SVC_I, CHRC_I, ADV_I = 'org.bluez.GattService1', 'org.bluez.GattCharacteristic1', 'org.bluez.LEAdvertisement1'
CTL_NAME, CTL_PATH, CTL_I = 'org.bleexplr.Lab', '/org/bleexplr/Lab', 'org.bleexplr.Lab.Fixtures1'

STREAM_SVC = '6c616273-0000-4000-8000-00000000a000'
STREAM_DATA = '6c616273-0000-4000-8000-00000000a001'   # notify: payload chunks, then b"EOM"
STREAM_CTRL = '6c616273-0000-4000-8000-00000000a002'   # write anything: (re)send the current payload
DROP_SVC = '6c616273-0000-4000-8000-00000000b000'
DROP_INFO = '6c616273-0000-4000-8000-00000000b001'     # read: b"dropper"
DFU_SVC = '0000fe59-0000-1000-8000-00805f9b34fb'       # Secure DFU: on hci4 on demand (Service Changed)
DFU_CHAR = '8ec90003-f315-4f60-9fb8-838830daea50'      # Buttonless DFU
IBEACON_UUID = bytes.fromhex('e2c56db5dffb48d2b060d0f5a71096e0')
IBEACON_MAJOR, IBEACON_MINOR, IBEACON_POWER = 1, 2, -59
EDDYSTONE_URL = bytes([0x10, 0xEB, 0x03]) + b'example' + bytes([0x00]) + b'lab'   # https://example.com/lab
DEFAULT_PAYLOAD = bytes(range(256)) * 2 + b'bleexplr lab stream'
CHUNK = 20

# Typed: dbus-python guesses a signature for {} only from introspection, which can fail while bluetoothd restarts.
NO_OPTIONS = dbus.Dictionary({}, signature='sv')
KICK = float(os.environ.get('LAB_ADV_KICK', '0'))        # btvirt: re-register adverts every KICK s
STREAM_GAP_MS = int(os.environ.get('LAB_STREAM_GAP_MS', '5'))


def log(*a):
    print('[%.2f]' % time.monotonic(), *a, flush=True)


def ay(b):
    return dbus.Array([dbus.Byte(x) for x in b], signature='y')


class Failed(dbus.exceptions.DBusException):
    _dbus_error_name = 'org.bluez.Error.Failed'


# ------------------------------------------------------------------ GATT application plumbing
class App(dbus.service.Object):
    def __init__(self, bus, path):
        self.path, self.services = path, []
        super().__init__(bus, path)

    @dbus.service.method(OM, out_signature='a{oa{sa{sv}}}')
    def GetManagedObjects(self):
        r = {}
        for s in self.services:
            r[dbus.ObjectPath(s.path)] = s.props()
            for c in s.chrcs:
                r[dbus.ObjectPath(c.path)] = c.props()
        return r


class Service(dbus.service.Object):
    def __init__(self, app, idx, uuid):
        self.path, self.uuid, self.chrcs = '%s/service%d' % (app.path, idx), uuid, []
        super().__init__(app.connection, self.path)
        app.services.append(self)

    def props(self):
        return {SVC_I: {'UUID': self.uuid, 'Primary': True,
                        'Characteristics': dbus.Array([c.path for c in self.chrcs], signature='o')}}

    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}')
    def GetAll(self, iface):
        return self.props()[iface]


class Chrc(dbus.service.Object):
    def __init__(self, svc, uuid, flags, value=b'', on_write=None, on_notify=None):
        self.path = '%s/char%d' % (svc.path, len(svc.chrcs))
        self.svc, self.uuid, self.flags, self.value = svc, uuid, flags, bytes(value)
        self.on_write, self.on_notify, self.notifying = on_write, on_notify, False
        super().__init__(svc.connection, self.path)
        svc.chrcs.append(self)

    def props(self):
        return {CHRC_I: {'Service': dbus.ObjectPath(self.svc.path), 'UUID': self.uuid,
                         'Flags': dbus.Array(self.flags, signature='s'),
                         'Descriptors': dbus.Array([], signature='o')}}

    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}')
    def GetAll(self, iface):
        return self.props()[iface]

    @dbus.service.method(CHRC_I, in_signature='a{sv}', out_signature='ay')
    def ReadValue(self, options):
        return ay(self.value[int(options.get('offset', 0)):])

    @dbus.service.method(CHRC_I, in_signature='aya{sv}')
    def WriteValue(self, value, options):
        v = bytes(int(b) for b in value)
        log('write', self.uuid, v.hex(), dict((str(k), str(x)) for k, x in options.items() if k in ('type', 'offset')))
        if self.on_write:
            self.on_write(v)
        else:
            self.value = v

    @dbus.service.method(CHRC_I)
    def StartNotify(self):
        if not self.notifying:
            self.notifying = True
            log('StartNotify', self.uuid)
            if self.on_notify:
                self.on_notify(True)

    @dbus.service.method(CHRC_I)
    def StopNotify(self):
        if self.notifying:
            self.notifying = False
            log('StopNotify', self.uuid)
            if self.on_notify:
                self.on_notify(False)

    @dbus.service.signal(PROPS, signature='sa{sv}as')
    def PropertiesChanged(self, iface, changed, invalidated):
        pass

    def notify(self, data):
        """Set the value; if a central subscribed, bluetoothd turns the PropertiesChanged into a notification."""
        self.value = bytes(data)
        if self.notifying:
            self.PropertiesChanged(CHRC_I, {'Value': ay(self.value)}, [])
        return self.notifying


class Adv(dbus.service.Object):
    def __init__(self, bus, path, props):
        self.path, self.p = path, props
        super().__init__(bus, path)

    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}')
    def GetAll(self, iface):
        return self.p

    @dbus.service.method(ADV_I)
    def Release(self):
        log('advertisement released', self.path)


# ------------------------------------------------------------------ fixtures
class Fixture:
    """One peripheral on its own adapter: optional GATT app + one advertisement that can be on or off."""
    default_on = True

    def __init__(self, lab, name, hci):
        self.lab, self.bus, self.name, self.hci = lab, lab.bus, name, hci
        self.apath = '/org/bluez/' + hci
        self.root = '/org/bleexplr/fixture/' + hci
        self.app = None
        self.adv = None
        self.adv_on = False        # wanted state
        self.registered = False    # state in bluetoothd
        self.busy = False
        self.kicked = False
        self.app_ok = False

    def adapter(self, iface):
        return dbus.Interface(self.bus.get_object(BLUEZ, self.apath), iface)

    def setup(self):
        """Asynchronous: bluetoothd calls back into us (GetManagedObjects) while registering."""
        ap = self.adapter(PROPS)
        ap.Set('org.bluez.Adapter1', 'Alias', dbus.String(self.name))   # GAP Device Name after connecting
        self.app_ok = self.app is None
        gen = self.lab.generation
        if self.app:
            def ok():
                if gen != self.lab.generation:
                    return
                self.app_ok = True
                log(self.name, 'GATT application registered on', self.hci)
            self.adapter('org.bluez.GattManager1').RegisterApplication(
                self.app.path, NO_OPTIONS, reply_handler=ok,
                error_handler=lambda e: log(self.name, 'GATT application FAILED on', self.hci, e), timeout=60)
        self.set_adv(self.default_on)

    def ready(self):
        return self.app_ok and (self.adv is None or (self.registered == self.adv_on and not self.busy))

    # advertisement on/off (async; bluetoothd calls back into us while registering)
    def set_adv(self, on):
        self.adv_on = bool(on)
        self._sync_adv()

    def forget_bluez(self):
        """bluetoothd went away: its registrations, subscriptions and pending calls with it."""
        self.registered = self.busy = self.kicked = self.app_ok = False
        for c in self.chrcs():
            c.notifying = False

    def chrcs(self):
        return [c for s in (self.app.services if self.app else []) for c in s.chrcs]

    def _sync_adv(self, kick=False):
        if self.busy or self.adv is None or not self.lab.bluez_up:
            return
        mgr = self.adapter('org.bluez.LEAdvertisingManager1')
        gen = self.lab.generation

        def done(what):
            def cb(*a):
                if gen != self.lab.generation:   # an answer (or NoReply) from a bluetoothd that is gone
                    return
                self.busy = False
                if what == 'reg':
                    self.registered = True
                    if not self.kicked:
                        log(self.name, 'advertising on', self.hci)
                    self.kicked = False
                elif what == 'unreg':
                    self.registered = False
                    if kick and self.adv_on:
                        self.kicked = True
                        return self._sync_adv()
                    log(self.name, 'advertising off', self.hci)
                else:
                    err = str(a[0]) if a else ''
                    log(self.name, 'advertisement', what, 'failed:', err)
                    self.registered = what == 'reg-err' and 'AlreadyExists' in err
                    GLib.timeout_add(1000, lambda: gen == self.lab.generation and self._sync_adv() and False)   # retry later
                    return
                if self.registered != self.adv_on:
                    self._sync_adv()
            return cb
        if self.adv_on and (not self.registered or kick):
            self.busy = True
            if self.registered:   # kick: unregister, the 'unreg' callback registers again
                mgr.UnregisterAdvertisement(self.adv.path, reply_handler=done('unreg'),
                                            error_handler=done('unreg-err'))
            else:
                mgr.RegisterAdvertisement(self.adv.path, NO_OPTIONS, reply_handler=done('reg'), error_handler=done('reg-err'))
        elif not self.adv_on and self.registered:
            self.busy = True
            mgr.UnregisterAdvertisement(self.adv.path, reply_handler=done('unreg'), error_handler=done('unreg-err'))

    def devices(self):
        """Device1 objects on this fixture's adapter (the centrals it has seen/connected)."""
        objs = self.lab.om.GetManagedObjects()
        return [(str(p), i['org.bluez.Device1']) for p, i in objs.items()
                if str(p).startswith(self.apath + '/dev_') and 'org.bluez.Device1' in i]

    def disconnect_all(self):
        n = 0
        for p, d in self.devices():
            if d.get('Connected'):
                log(self.name, 'Disconnect', p)
                dbus.Interface(self.bus.get_object(BLUEZ, p), 'org.bluez.Device1').Disconnect(timeout=20)
                n += 1
        return n

    def reset(self):
        for p, _ in self.devices():
            try:
                self.adapter('org.bluez.Adapter1').RemoveDevice(p)   # also drops a live link
            except dbus.DBusException as e:
                log(self.name, 'RemoveDevice', p, e)
        self.set_adv(self.default_on)

    def state(self):
        return {'adapter': self.hci, 'advertising': self.adv_on,
                'connected': sum(1 for _, d in self.devices() if d.get('Connected'))}


class ITag(Fixture):
    def __init__(self, lab, hci):
        super().__init__(lab, 'Lab iTag', hci)
        self.app = App(self.bus, self.root)
        s = Service(self.app, 0, '0000ffe0-0000-1000-8000-00805f9b34fb')
        self.key = Chrc(s, '0000ffe1-0000-1000-8000-00805f9b34fb', ['read', 'notify'], b'\x00')
        s = Service(self.app, 1, '00001802-0000-1000-8000-00805f9b34fb')
        self.alert = Chrc(s, '00002a06-0000-1000-8000-00805f9b34fb', ['write-without-response', 'write'],
                          b'\x00', on_write=self.alerted)
        s = Service(self.app, 2, '0000180f-0000-1000-8000-00805f9b34fb')
        self.battery = Chrc(s, '00002a19-0000-1000-8000-00805f9b34fb', ['read', 'notify'], b'\x64')
        self.adv = Adv(self.bus, self.root + '/adv', {
            'Type': 'peripheral', 'LocalName': self.name,
            'ServiceUUIDs': dbus.Array(['ffe0', '1802', '180f'], signature='s'),
            'Appearance': dbus.UInt16(0x0200)})   # Generic Tag
        self.presses, self.alert_writes = 0, []

    def alerted(self, v):
        self.alert.value = v
        self.alert_writes.append(v.hex())

    def press(self, value=b'\x01'):
        self.presses += 1
        sent = self.key.notify(value)
        log(self.name, 'press', self.presses, 'notified' if sent else 'NOT notified (no subscriber)')
        return sent

    def reset(self):
        self.presses, self.alert_writes = 0, []
        self.alert.value, self.key.value, self.battery.value = b'\x00', b'\x00', b'\x64'
        super().reset()

    def state(self):
        return dict(super().state(), presses=self.presses, key_notifying=self.key.notifying,
                    alert_level=self.alert.value[0] if self.alert.value else 0,
                    alert_writes=','.join(self.alert_writes), battery=self.battery.value[0])


class Streamer(Fixture):
    def __init__(self, lab, hci):
        super().__init__(lab, 'Lab Stream', hci)
        self.app = App(self.bus, self.root)
        s = Service(self.app, 0, STREAM_SVC)
        self.data = Chrc(s, STREAM_DATA, ['notify'], b'', on_notify=self.notify_changed)
        self.ctrl = Chrc(s, STREAM_CTRL, ['write', 'write-without-response'], b'', on_write=lambda v: self.start())
        self.adv = Adv(self.bus, self.root + '/adv', {'Type': 'peripheral', 'LocalName': self.name})
        self.payload, self.pending, self.timer, self.sent = DEFAULT_PAYLOAD, False, None, 0

    def notify_changed(self, on):
        if on and self.pending:
            GLib.timeout_add(300, lambda: self.start() and False)
        if not on:
            self.cancel()

    def set_payload(self, payload):
        self.payload = bytes(payload)

    def start(self):
        """Send the payload now if a central listens, else as soon as one subscribes."""
        self.cancel()
        if not self.data.notifying:
            self.pending = True
            log(self.name, 'stream of %d bytes pending until a central subscribes' % len(self.payload))
            return False
        self.pending = False
        chunks = [self.payload[i:i + CHUNK] for i in range(0, len(self.payload), CHUNK)] + [b'EOM']
        log(self.name, 'streaming %d bytes in %d notifications' % (len(self.payload), len(chunks)))

        def tick():
            if not chunks or not self.data.notifying:
                self.timer = None
                log(self.name, 'stream done' if not chunks else 'stream aborted (notify stopped)')
                return False
            self.data.notify(chunks.pop(0))
            self.sent += 1
            return True
        self.timer = GLib.timeout_add(max(1, STREAM_GAP_MS), tick)
        return True

    def cancel(self):
        if self.timer:
            GLib.source_remove(self.timer)
            self.timer = None

    def reset(self):
        self.cancel()
        self.payload, self.pending, self.sent = DEFAULT_PAYLOAD, False, 0
        super().reset()

    def state(self):
        return dict(super().state(), payload_len=len(self.payload), pending=self.pending,
                    notifying=self.data.notifying, streaming=self.timer is not None, notifications_sent=self.sent)


class Dropper(Fixture):
    def __init__(self, lab, hci):
        super().__init__(lab, 'Lab Dropper', hci)
        self.app = App(self.bus, self.root)
        s = Service(self.app, 0, DROP_SVC)
        Chrc(s, DROP_INFO, ['read'], b'dropper')
        self.adv = Adv(self.bus, self.root + '/adv', {'Type': 'peripheral', 'LocalName': self.name})

        # A second GATT application on the same adapter, registered on demand: its service joins
        # (or leaves) hci4's database while a central is connected, and bluetoothd sends that
        # central a Service Changed indication, as a firmware entering its DFU mode does.
        self.extra = App(self.bus, self.root + '/extra')
        s = Service(self.extra, 0, DFU_SVC)
        Chrc(s, DFU_CHAR, ['write', 'indicate'])
        self.extra_on = False

    def drop(self):
        n = self.disconnect_all()
        log(self.name, 'dropped %d link(s)' % n)
        return n

    def change_database(self, on, done, failed):
        """Add (on) or remove the extra service; done(True) when the database changed. Asynchronous:
        bluetoothd calls back into us (GetManagedObjects) while registering."""
        if bool(on) == self.extra_on:
            return done(False)
        mgr = self.adapter('org.bluez.GattManager1')

        def ok():
            self.extra_on = bool(on)
            log(self.name, 'database changed: DFU service', 'added' if on else 'removed')
            done(True)
        call = mgr.RegisterApplication if on else mgr.UnregisterApplication
        args = (self.extra.path, {}) if on else (self.extra.path,)
        call(*args, reply_handler=ok, error_handler=failed, timeout=30)

    def reset(self):
        if self.extra_on:
            self.extra_on = False
            self.adapter('org.bluez.GattManager1').UnregisterApplication(
                self.extra.path, reply_handler=lambda: log(self.name, 'DFU service removed (reset)'),
                error_handler=lambda e: log(self.name, 'UnregisterApplication', e), timeout=30)
        super().reset()

    def state(self):
        return dict(super().state(), dfu_service=self.extra_on)


class IBeacon(Fixture):
    def __init__(self, lab, hci):
        super().__init__(lab, 'Lab iBeacon', hci)
        md = b'\x02\x15' + IBEACON_UUID + IBEACON_MAJOR.to_bytes(2, 'big') + IBEACON_MINOR.to_bytes(2, 'big') \
            + (IBEACON_POWER & 0xFF).to_bytes(1, 'big')
        # No Flags AD (a real iBeacon sends 02 01 06): BlueZ 5.66 refuses flags on broadcast adverts
        # ("Broadcast cannot set flags"). bluetoothd still reports flag-less advertisers while any client has
        # a discovery filter set (SetDiscoveryFilter); with an unfiltered discovery it ignores them.
        self.adv = Adv(self.bus, self.root + '/adv', {
            'Type': 'broadcast',
            'ManufacturerData': dbus.Dictionary({dbus.UInt16(0x004C): ay(md)}, signature='qv')})


class Eddystone(Fixture):
    def __init__(self, lab, hci):
        super().__init__(lab, 'Lab Eddystone', hci)
        self.adv = Adv(self.bus, self.root + '/adv', {
            'Type': 'broadcast',
            'ServiceUUIDs': dbus.Array(['feaa'], signature='s'),
            'ServiceData': dbus.Dictionary({'feaa': ay(EDDYSTONE_URL)}, signature='sv')})


FIXTURES = [('itag', ITag, 'hci2'), ('stream', Streamer, 'hci3'), ('dropper', Dropper, 'hci4'),
            ('ibeacon', IBeacon, 'hci5'), ('eddystone', Eddystone, 'hci6')]


class Control(dbus.service.Object):
    """org.bleexplr.Lab.Fixtures1: what the tests call (over the lab's TCP bus or inside the VM)."""

    def __init__(self, lab):
        self.lab = lab
        super().__init__(lab.bus, CTL_PATH)

    def f(self, name):
        if name not in self.lab.fx:
            raise Failed('no fixture %r (have: %s)' % (name, ', '.join(self.lab.fx)))
        return self.lab.fx[name]

    @dbus.service.method(CTL_I, out_signature='b')
    def Press(self):
        return self.f('itag').press()

    @dbus.service.method(CTL_I, in_signature='ay', out_signature='b')
    def PressValue(self, value):
        """A press that notifies `value` instead of 01 (tests that tell presses apart by value)."""
        return self.f('itag').press(bytes(int(b) for b in value))

    @dbus.service.method(CTL_I, in_signature='sb')
    def SetAdvertising(self, name, on):
        """Switch a fixture's advertisement on/off (beacons: walk in/out of the region)."""
        log('SetAdvertising', name, bool(on))
        self.f(str(name)).set_adv(bool(on))

    @dbus.service.method(CTL_I, in_signature='ay', out_signature='b')
    def Stream(self, payload):
        """Set the stream payload and send it (now, or when a central subscribes). True = started now."""
        s = self.f('stream')
        s.set_payload(bytes(int(b) for b in payload))
        return s.start()

    @dbus.service.method(CTL_I, in_signature='s', out_signature='b')
    def StreamFile(self, path):
        s = self.f('stream')
        with open(str(path), 'rb') as fh:
            s.set_payload(fh.read())
        return s.start()

    @dbus.service.method(CTL_I, out_signature='i')
    def Drop(self):
        return self.f('dropper').drop()

    @dbus.service.method(CTL_I, in_signature='b', out_signature='b', async_callbacks=('done', 'failed'))
    def ChangeDatabase(self, on, done, failed):
        """Lab Dropper's database gains (True) or loses the Secure DFU service."""
        self.f('dropper').change_database(bool(on), done, failed)

    @dbus.service.method(CTL_I, in_signature='s', out_signature='i')
    def Disconnect(self, name):
        return self.f(str(name)).disconnect_all()

    @dbus.service.method(CTL_I)
    def Reset(self):
        """Default state: remove peripheral-side device objects (drops links), adverts on, counters zero."""
        log('Reset')
        for fx in self.lab.fx.values():
            fx.reset()

    @dbus.service.method(CTL_I, out_signature='b')
    def Settled(self):
        """True when every advertisement is in its wanted state in bluetoothd."""
        return all(fx.ready() for fx in self.lab.fx.values())

    @dbus.service.method(CTL_I, out_signature='a{sa{sv}}')
    def State(self):
        return {n: fx.state() for n, fx in self.lab.fx.items()}


class Lab:
    def __init__(self):
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        self.bus = dbus.SystemBus()
        self.om = dbus.Interface(self.bus.get_object(BLUEZ, '/'), OM)
        self.bluez_up, self.generation = True, 0
        objs = self.om.GetManagedObjects()
        self.fx = {}
        for name, cls, hci in FIXTURES:
            if '/org/bluez/' + hci not in objs:
                log('no adapter', hci, 'for', name, '- fixture skipped')
                continue
            self.fx[name] = cls(self, hci)
        for fx in self.fx.values():
            fx.setup()
        self.ctl = Control(self)
        self.name = dbus.service.BusName(CTL_NAME, self.bus)
        # bluetoothd restarting (the lab's restart tests): everything registered with it died with it
        self.bus.add_signal_receiver(self.bluez_owner, 'NameOwnerChanged', 'org.freedesktop.DBus',
                                     'org.freedesktop.DBus', '/org/freedesktop/DBus', arg0=BLUEZ)
        GLib.timeout_add(200, self.check_ready)

    def bluez_owner(self, name, old, new):
        self.generation += 1
        for fx in self.fx.values():
            fx.forget_bluez()
        self.bluez_up = bool(new)
        log('bluetoothd', 'back (%s): registering again once the adapters are powered' % new if new else 'gone')
        if new:
            GLib.timeout_add(200, self.setup_again, self.generation)

    def setup_again(self, gen):
        """Waits until bluetoothd exports every fixture's adapter, powered, then registers everything again."""
        if gen != self.generation:
            return False
        try:   # a new proxy: dbus-python binds one to the unique name org.bluez had when it was made
            self.om = dbus.Interface(self.bus.get_object(BLUEZ, '/'), OM)
            objs = self.om.GetManagedObjects(timeout=5)
        except dbus.DBusException as e:
            log('GetManagedObjects after the restart:', e.get_dbus_message())
            return True
        if not all(objs.get(fx.apath, {}).get('org.bluez.Adapter1', {}).get('Powered') for fx in self.fx.values()):
            return True
        for fx in self.fx.values():
            fx.setup()
        GLib.timeout_add(200, self.check_ready)
        return False

    def check_ready(self):
        if not all(fx.ready() for fx in self.fx.values()):
            return True
        log('fixtures ready:', ', '.join('%s=%s' % (n, f.hci) for n, f in self.fx.items()),
            '(advert kick every %ss)' % KICK if KICK > 0 else '')
        if KICK > 0 and not self.generation:   # once: the timer goes on across bluetoothd restarts
            GLib.timeout_add(int(KICK * 1000), self.kick)
        return False

    def kick(self):
        # btvirt sends one advertising report per advertising enable: re-register to produce the next one.
        for fx in self.fx.values():
            if fx.adv_on and fx.registered:
                fx._sync_adv(kick=True)
        return True


def ctl(args):
    """Command-line client: fixtures.py ctl press | adv NAME on|off | stream FILE | drop | reset | state"""
    bus = dbus.SystemBus()
    c = dbus.Interface(bus.get_object(CTL_NAME, CTL_PATH), CTL_I)
    cmd = args[0] if args else 'state'
    if cmd == 'press':
        r = 'notified' if c.Press() else 'pressed, but no central subscribed to FFE1: no notification'
    elif cmd in ('adv', 'beacon'):
        names = ['ibeacon', 'eddystone'] if cmd == 'beacon' and args[1] in ('on', 'off') else [args[1]]
        on = args[-1] == 'on'
        for n in names:
            c.SetAdvertising(n, on)
        r = '%s %s' % (','.join(names), 'on' if on else 'off')
    elif cmd == 'stream':
        r = c.StreamFile(os.path.abspath(args[1])) if len(args) > 1 else c.Stream(ay(DEFAULT_PAYLOAD))
        r = 'streaming' if r else 'pending: sent when a central subscribes to the stream characteristic'
    elif cmd == 'drop':
        r = 'dropped %d link(s)' % c.Drop()
    elif cmd == 'dfu':
        r = 'changed' if c.ChangeDatabase(args[1:2] == ['on']) else 'unchanged'
    elif cmd == 'reset':
        c.Reset(timeout=60)
        r = 'reset'
    elif cmd == 'state':
        st = c.State()
        for n in sorted(st):
            print('%-10s %s' % (n, ' '.join('%s=%s' % (k, v) for k, v in sorted(st[n].items()))))
        return 0
    else:
        sys.exit('usage: fixtures.py ctl press | beacon [ibeacon|eddystone] on|off | adv NAME on|off | '
                 'stream [FILE] | drop | dfu on|off | reset | state')
    print(r if r is not None else 'ok')
    return 0


if __name__ == '__main__':
    if sys.argv[1:2] == ['ctl']:
        sys.exit(ctl(sys.argv[2:]))
    Lab()
    GLib.MainLoop().run()
