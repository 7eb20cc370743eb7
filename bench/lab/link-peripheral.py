#!/usr/bin/python3
"""The peripheral of `make bench-link`, INSIDE the lab's guest: a GATT application on one adapter
(hci7 by default) with two characteristics, and an advertisement ("bx link").

    python3 link-peripheral.py [--adapter hci7] [--count N] [--size BYTES]

  NOTIFY_UUID (notify): on each subscription it sends --count notifications of --size bytes (a
      4-byte little-endian sequence number, then filler), then b"EOM" (again on `eom`: the driver asks
      when the link has gone quiet and the receiver still waits, having lost it).
      "As fast as the stack lets it": the characteristic has NotifyAcquired, so bluetoothd asks
      for a socket when a central subscribes (the server side of AcquireNotify) and reads
      notifications from it, one write() each, with no D-Bus message per notification. This
      process writes into that socket in a blocking loop: it goes exactly as fast as bluetoothd
      takes them (the socket's buffer is the back-pressure). Past that bluetoothd queues them in its
      ATT layer for the link; the count written is what bluetoothd accepted: the reference for "lost".
  WRITE_UUID (write-without-response, and read: a writer may read to learn that all went): counts what arrives. It has WriteAcquired, so bluetoothd
      hands each Write Command to a socket (the server side of AcquireWrite, given a large buffer)
      instead of a WriteValue call; WriteValue is counted too, should bluetoothd use it.

stdin takes commands (one a line): `reset` (zero the write counters), `writes` (report them), `eom`, `quit`. stdout says what
happens, one JSON object a line, each with "t" (CLOCK_MONOTONIC, s):
  {"event": "ready"}, {"event": "subscribed", "mtu": N}, {"event": "first"} (first notification
  written), {"event": "sent", "count": N, "first": t, "last": t} (the data notifications, before EOM),
  {"event": "eom-again"}, {"event": "unsubscribed", "eoms": N}, {"event": "first-write"} (the first since `reset`), {"event": "writes", "count": N, "bytes": B, "first": t,
  "last": t, "eom": bool, "path": "fd"|"WriteValue"} (after `reset`, on request `writes`), errors.
Python's standard library, python3-dbus and python3-gi (Debian's, in the guest)."""
import json, os, socket, struct, sys, threading, time
import dbus, dbus.service, dbus.mainloop.glib
from gi.repository import GLib

BLUEZ = 'org.bluez'
OM, PROPS = 'org.freedesktop.DBus.ObjectManager', 'org.freedesktop.DBus.Properties'
SVC_I, CHRC_I, ADV_I = 'org.bluez.GattService1', 'org.bluez.GattCharacteristic1', 'org.bluez.LEAdvertisement1'
SERVICE_UUID = '626c696e-0000-4000-8000-00000000c000'   # "blin"
NOTIFY_UUID = '626c696e-0000-4000-8000-00000000c001'
WRITE_UUID = '626c696e-0000-4000-8000-00000000c002'
EOM = b'EOM'
NO_OPTIONS = dbus.Dictionary({}, signature='sv')

args = sys.argv[1:]


def opt(name, default):
    return args[args.index(name) + 1] if name in args else default


ADAPTER = opt('--adapter', 'hci7')
COUNT = int(opt('--count', '3000'))
SIZE = max(4, int(opt('--size', '20')))
DEBUG = '--debug' in args   # every write that arrives, said
out_lock = threading.Lock()


def say(event, **kw):
    kw = dict(event=event, t=round(time.monotonic(), 6), **kw)
    with out_lock:
        sys.stdout.write(json.dumps(kw) + '\n')
        sys.stdout.flush()


def payload(i):
    return struct.pack('<I', i) + bytes((i + k) & 0x3F for k in range(SIZE - 4))


class App(dbus.service.Object):
    def __init__(self, bus, path):
        self.path, self.objs = path, []
        super().__init__(bus, path)

    @dbus.service.method(OM, out_signature='a{oa{sa{sv}}}')
    def GetManagedObjects(self):
        return {dbus.ObjectPath(o.path): o.props() for o in self.objs}


class Service(dbus.service.Object):
    def __init__(self, app, path):
        self.path, self.chrcs = path, []
        super().__init__(app.connection, path)
        app.objs.append(self)

    def props(self):
        return {SVC_I: {'UUID': SERVICE_UUID, 'Primary': True,
                        'Characteristics': dbus.Array([c.path for c in self.chrcs], signature='o')}}


class Chrc(dbus.service.Object):
    def __init__(self, app, svc, n, uuid, flags, extra):
        self.path, self.svc, self.uuid, self.flags, self.extra = '%s/char%d' % (svc.path, n), svc, uuid, flags, extra
        super().__init__(app.connection, self.path)
        svc.chrcs.append(self)
        app.objs.append(self)

    def props(self):
        p = {'Service': dbus.ObjectPath(self.svc.path), 'UUID': self.uuid, 'Flags': dbus.Array(self.flags, signature='s'),
             'Descriptors': dbus.Array([], signature='o')}
        p.update(self.extra)
        return {CHRC_I: p}

    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}')
    def GetAll(self, iface):
        return self.props().get(iface, {})

    @dbus.service.method(PROPS, in_signature='ss', out_signature='v')
    def Get(self, iface, name):
        return self.props()[iface][name]

    @dbus.service.method(CHRC_I, in_signature='a{sv}', out_signature='ay')
    def ReadValue(self, options):
        return dbus.Array([], signature='y')


class Notifier(Chrc):
    """Server side of AcquireNotify: each subscription gets a socket pair and a sender thread."""

    def __init__(self, app, svc, n):
        super().__init__(app, svc, n, NOTIFY_UUID, ['notify'], {'NotifyAcquired': dbus.Boolean(False)})
        self.gen, self.current, self.eoms = 0, None, 0

    @dbus.service.method(CHRC_I, in_signature='a{sv}', out_signature='hq')
    def AcquireNotify(self, options):
        mtu = int(options.get('mtu', 23))
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.gen, self.eoms = self.gen + 1, 1
        say('subscribed', mtu=mtu, device=str(options.get('device', '')))
        threading.Thread(target=self.send, args=(mine, self.gen), daemon=True).start()
        fd = dbus.types.UnixFd(theirs)   # dbus-python keeps a dup of it until the reply is sent
        theirs.close()
        return fd, dbus.UInt16(mtu)

    @dbus.service.method(CHRC_I)
    def StartNotify(self):
        say('error', what='bluetoothd called StartNotify: its AcquireNotify failed')

    @dbus.service.method(CHRC_I)
    def StopNotify(self):
        pass

    def send(self, sock, gen):
        self.current = sock
        n, first = 0, None
        try:
            for i in range(COUNT):
                sock.send(payload(i))
                if first is None:
                    first = time.monotonic()
                    say('first')
                n += 1
            last = time.monotonic()
            sock.send(EOM)
            say('sent', count=n, first=round(first or last, 6), last=round(last, 6))
            while sock.recv(16):   # bluetoothd never writes here: an empty read is its close
                pass
        except OSError as e:   # bluetoothd closed its end: the central unsubscribed, or the link went down
            if n < COUNT:
                say('sent', count=n, first=round(first or time.monotonic(), 6), last=round(time.monotonic(), 6),
                    cut=str(e))
        finally:
            say('unsubscribed', eoms=self.eoms)
            self.current = None
            sock.close()

    def resend_eom(self):
        """The marker again (asked for when the link has gone quiet and the central still waits: it lost it)."""
        sock = self.current
        if sock is not None:
            try:
                sock.send(EOM)
                self.eoms += 1
                say('eom-again')
            except OSError:
                pass


class Sink(Chrc):
    """Server side of AcquireWrite (and WriteValue, counted the same), for Write Commands."""

    def __init__(self, app, svc, n):
        super().__init__(app, svc, n, WRITE_UUID, ['read', 'write-without-response'], {'WriteAcquired': dbus.Boolean(False)})
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        with self.lock:
            self.count, self.bytes, self.first, self.last, self.eom, self.via = 0, 0, None, None, False, None

    def arrived(self, value, path):
        now = time.monotonic()
        if DEBUG:
            say('arrival', size=len(value), path=path)
        with self.lock:
            if value == EOM:
                self.eom = True
                return
            self.count += 1
            if self.count == 1:
                say('first-write', path=path)
            self.bytes += len(value)
            self.first = self.first or now
            self.last = now
            self.via = self.via or path

    def report(self):
        with self.lock:
            say('writes', count=self.count, bytes=self.bytes, first=self.first, last=self.last, eom=self.eom, path=self.via)

    @dbus.service.method(CHRC_I, in_signature='a{sv}', out_signature='hq')
    def AcquireWrite(self, options):
        mtu = int(options.get('mtu', 23))
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:   # bluetoothd writes into its end without waiting: room for a few seconds of writes
            theirs.setsockopt(socket.SOL_SOCKET, 32, 8 << 20)   # SO_SNDBUFFORCE (root)
        except OSError:
            theirs.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 << 20)
        say('write-acquired', mtu=mtu)
        threading.Thread(target=self.drain, args=(mine,), daemon=True).start()
        fd = dbus.types.UnixFd(theirs)
        theirs.close()
        return fd, dbus.UInt16(mtu)

    def drain(self, sock):
        try:
            while True:
                v = sock.recv(1024)
                if not v:   # SEQPACKET: an empty read is the peer's close (no empty Write Command is sent here)
                    break
                self.arrived(v, 'fd')
        except OSError:
            pass
        finally:
            sock.close()
            say('write-released')

    @dbus.service.method(CHRC_I, in_signature='aya{sv}')
    def WriteValue(self, value, options):
        self.arrived(bytes(value), 'WriteValue')


class Adv(dbus.service.Object):
    def __init__(self, bus, path):
        self.path = path
        super().__init__(bus, path)

    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}')
    def GetAll(self, iface):
        return {'Type': 'peripheral', 'LocalName': 'bx link', 'Discoverable': dbus.Boolean(True),
                'ServiceUUIDs': dbus.Array([], signature='s')}

    @dbus.service.method(ADV_I)
    def Release(self):
        pass


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    root = '/org/bleexplr/linkbench'
    app = App(bus, root)
    svc = Service(app, root + '/service0')
    notifier, sink = Notifier(app, svc, 0), Sink(app, svc, 1)
    adv = Adv(bus, root + '/adv')
    apath = '/org/bluez/' + ADAPTER
    loop = GLib.MainLoop()
    pending = {'app': None, 'adv': None}

    def done(what):
        def ok(*_):
            pending[what] = True
            if all(pending.values()):
                say('ready', adapter=ADAPTER, count=COUNT, size=SIZE)

        def err(e):
            say('error', what='%s registration failed: %s' % (what, e))
            loop.quit()
        return ok, err
    dbus.Interface(bus.get_object(BLUEZ, apath), PROPS).Set('org.bluez.Adapter1', 'Alias', dbus.String('bx link'))
    ok, err = done('app')
    dbus.Interface(bus.get_object(BLUEZ, apath), 'org.bluez.GattManager1').RegisterApplication(
        app.path, NO_OPTIONS, reply_handler=ok, error_handler=err, timeout=60)
    ok, err = done('adv')
    dbus.Interface(bus.get_object(BLUEZ, apath), 'org.bluez.LEAdvertisingManager1').RegisterAdvertisement(
        adv.path, NO_OPTIONS, reply_handler=ok, error_handler=err, timeout=60)

    def command(src, cond):
        line = sys.stdin.readline()
        if not line or line.strip() == 'quit':
            loop.quit()
            return False
        if line.strip() == 'reset':
            sink.reset()
            say('reset')
        elif line.strip() == 'writes':
            sink.report()
        elif line.strip() == 'eom':
            notifier.resend_eom()
        return True
    GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_IN | GLib.IO_HUP, command)
    loop.run()


main()
