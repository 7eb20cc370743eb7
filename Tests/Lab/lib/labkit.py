"""Host-side helpers for lab tests: a python3-dbus central on the lab's hci0 plus the fixture control API.

Tests run with /usr/bin/python3 (Debian's, with python3-dbus and python3-gi) and find the lab's bus in
BLEEXPLR_LAB_BUS (tcp:host=127.0.0.1,port=17777). A test passes by exiting 0; `fail(...)` exits 1.
bx() / Background.bleexplr() run the binary on the host over that TCP bus (no file descriptors pass there);
guest_bleexplr() runs it inside the VM on the guest's Unix system bus, where AcquireNotify's socket does.
"""
import json, os, signal, subprocess, sys, time
import dbus, dbus.mainloop.glib
from gi.repository import GLib

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)

BLUEZ = 'org.bluez'
OM, PROPS = 'org.freedesktop.DBus.ObjectManager', 'org.freedesktop.DBus.Properties'
DEV_I, CHRC_I, ADAPTER_I = 'org.bluez.Device1', 'org.bluez.GattCharacteristic1', 'org.bluez.Adapter1'
CTL_NAME, CTL_PATH, CTL_I = 'org.bleexplr.Lab', '/org/bleexplr/Lab', 'org.bleexplr.Lab.Fixtures1'

# what the fixtures send (guest/fixtures.py)
ITAG, STREAM, DROPPER = 'Lab iTag', 'Lab Stream', 'Lab Dropper'
STREAM_SVC = '6c616273-0000-4000-8000-00000000a000'
STREAM_DATA = '6c616273-0000-4000-8000-00000000a001'
STREAM_CTRL = '6c616273-0000-4000-8000-00000000a002'
DROP_INFO = '6c616273-0000-4000-8000-00000000b001'
IBEACON_MD = bytes.fromhex('0215' 'e2c56db5dffb48d2b060d0f5a71096e0' '0001' '0002' 'c5')
EDDYSTONE_SD = bytes([0x10, 0xEB, 0x03]) + b'example' + bytes([0x00]) + b'lab'
FEAA = '0000feaa-0000-1000-8000-00805f9b34fb'


def u16(x):
    return '0000%s-0000-1000-8000-00805f9b34fb' % x


T0 = time.monotonic()


def log(*a):
    print('[%6.2fs]' % (time.monotonic() - T0), *a, flush=True)


class TestFailure(Exception):
    pass


def fail(msg):
    raise TestFailure(msg)


def check(cond, msg):
    if not cond:
        fail(msg)
    log('ok:', msg)


def bytes_of(v):
    return bytes(int(b) for b in v)


# ------------------------------------------------------------------ which BlueZ the lab runs
NOT_RUN = 77   # run-tests.sh: exit status of a test that cannot run on this BlueZ (with a "NOT RUN:" line)


def _guest_versions():
    """The guest's own `kernel=... bluez=...` line (stage2 writes it into the 9p share)."""
    sh = os.environ.get('BLEEXPLR_LAB_SH') or os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lab.sh')
    try:
        top = subprocess.run([sh, 'cache-dir'], capture_output=True, text=True, timeout=10).stdout.strip()
        with open(os.path.join(top, 'run', 'xfer', 'state', 'versions')) as f:
            return dict(kv.split('=', 1) for kv in f.read().split() if '=' in kv)
    except (OSError, subprocess.SubprocessError):
        return {}


def bluez_version():
    """The lab's BlueZ as a tuple, e.g. (5, 82); BLEEXPLR_LAB_BLUEZ (run-tests.sh) or the guest's own report."""
    v = os.environ.get('BLEEXPLR_LAB_BLUEZ') or _guest_versions().get('bluez', '')
    try:
        return tuple(int(x) for x in v.split('.')[:2])
    except ValueError:
        fail('cannot tell which BlueZ the lab runs (BLEEXPLR_LAB_BLUEZ=%r)' % v)


def bluez_at_least(version):
    return bluez_version() >= tuple(int(x) for x in version.split('.'))


def require_bluez(version, what):
    """Ends the test as NOT RUN (never passed) when the lab's BlueZ is older than `version`."""
    if not bluez_at_least(version):
        log('NOT RUN: %s needs BlueZ >= %s; this lab runs %s' % (what, version, '.'.join(map(str, bluez_version()))))
        sys.exit(NOT_RUN)
    log('BlueZ %s >= %s: %s can be tested' % ('.'.join(map(str, bluez_version())), version, what))


def bus_address():
    a = os.environ.get('BLEEXPLR_LAB_BUS') or os.environ.get('DBUS_SYSTEM_BUS_ADDRESS')
    if not a:
        sys.exit('BLEEXPLR_LAB_BUS is not set (run through Tests/Lab/run-tests.sh, or eval "$(Tests/Lab/lab.sh env)")')
    return a


def connect_bus():
    b = dbus.bus.BusConnection(bus_address())
    return b


def pump(seconds=0.0, until=None):
    """Run the GLib main loop for up to `seconds`, or until until() is true. Returns until()'s last value."""
    ctx = GLib.MainContext.default()
    end = time.monotonic() + seconds
    tick = GLib.timeout_add(50, lambda: True)
    try:
        while True:
            r = until() if until else None
            if r or time.monotonic() >= end:
                return r
            ctx.iteration(True)
    finally:
        GLib.source_remove(tick)


class Central:
    """A central on the lab's hci0: mirrors Device1 objects and counts advertising events per device."""

    def __init__(self, adapter='hci0', bus=None):
        self.bus = bus or connect_bus()
        self.apath = '/org/bluez/' + adapter
        self.devices = {}      # path -> Device1 props (merged)
        self.adv_events = {}   # path -> [monotonic time of each ManufacturerData/ServiceData/RSSI update]
        self.values = {}       # characteristic path -> [bytes of each Value change]
        self.bus.add_signal_receiver(self._added, 'InterfacesAdded', OM, BLUEZ)
        self.bus.add_signal_receiver(self._removed, 'InterfacesRemoved', OM, BLUEZ)
        self.bus.add_signal_receiver(self._changed, 'PropertiesChanged', PROPS, BLUEZ, path_keyword='path')
        self.om = dbus.Interface(self.bus.get_object(BLUEZ, '/'), OM)
        self.adapter = dbus.Interface(self.bus.get_object(BLUEZ, self.apath), ADAPTER_I)
        for p, ifs in self.om.GetManagedObjects().items():
            self._added(p, ifs)
        self.discovering = False

    # --- mirror
    def _mine(self, path):
        return str(path).startswith(self.apath + '/dev_')

    def _added(self, path, ifs):
        if DEV_I in ifs and self._mine(path):
            self.devices[str(path)] = dict(ifs[DEV_I])
            self.adv_events.setdefault(str(path), []).append(time.monotonic())

    def _removed(self, path, ifs):
        if DEV_I in ifs:
            self.devices.pop(str(path), None)

    def _changed(self, iface, changed, invalidated, path=None):
        path = str(path)
        if iface == DEV_I and path in self.devices:
            self.devices[path].update(changed)
            if any(k in changed for k in ('ManufacturerData', 'ServiceData', 'RSSI')):
                self.adv_events.setdefault(path, []).append(time.monotonic())
        elif iface == CHRC_I and 'Value' in changed:
            self.values.setdefault(path, []).append(bytes_of(changed['Value']))

    # --- discovery
    def forget_all(self):
        for p in list(self.devices):
            try:
                self.adapter.RemoveDevice(p)
            except dbus.DBusException:
                pass
        self.devices.clear()

    def scan(self, rssi=None, duplicate=True, transport_only=False):
        """transport_only: a filter of Transport alone, which BlueZ >= 5.67 treats as regular (unfiltered)
        discovery: only discoverable LE advertisers are reported (bluetoothctl's `transport le` does this)."""
        f = {'Transport': 'le'} if transport_only else {'Transport': 'le', 'DuplicateData': dbus.Boolean(duplicate)}
        if rssi is not None:
            f['RSSI'] = dbus.Int16(rssi)
        self.adapter.SetDiscoveryFilter(dbus.Dictionary(f, signature='sv'))
        self.adapter.StartDiscovery()
        self.discovering = True
        log('discovery started', {k: str(v) for k, v in f.items()})

    def stop_scan(self):
        if self.discovering:
            try:
                self.adapter.StopDiscovery()
            except dbus.DBusException:
                pass
            self.discovering = False

    def find(self, pred, timeout=20.0, what='device'):
        """Scan (already started) until a device matches pred(props); returns its path."""
        def hit():
            for p, d in self.devices.items():
                if pred(d):
                    return p
        p = pump(timeout, hit)
        if not p:
            fail('%s not found within %.0fs (devices on %s: %s)' % (what, timeout, self.apath, self.summary()))
        log('found %s: %s (%s)' % (what, p, self.devices[p].get('Name', self.devices[p].get('Alias'))))
        return p

    def find_name(self, name, timeout=20.0):
        return self.find(lambda d: str(d.get('Name', '')) == name, timeout, repr(name))

    def summary(self):
        return ', '.join('%s=%s' % (p.rsplit('/', 1)[-1], d.get('Name', '?')) for p, d in self.devices.items()) or 'none'

    # --- connection / GATT
    def dev(self, path):
        return dbus.Interface(self.bus.get_object(BLUEZ, path), DEV_I)

    def prop(self, path, iface, name):
        return dbus.Interface(self.bus.get_object(BLUEZ, path), PROPS).Get(iface, name)

    def connect(self, path, timeout=30.0):
        self.stop_scan()   # like a real explorer; bluetoothd pauses scanning while connecting anyway
        for attempt in (1, 2):
            try:
                self.dev(path).Connect(timeout=timeout)
                break
            except dbus.DBusException as e:   # le-connection-abort-by-local is a known transient failure
                if attempt == 2:
                    fail('Connect(%s) failed: %s' % (path, e))
                log('Connect failed (%s), retrying once' % e.get_dbus_message())
                pump(1.0)
        ok = pump(timeout, lambda: bool(self.prop(path, DEV_I, 'ServicesResolved')))
        check(ok, 'connected to %s and services resolved' % path)

    def chars(self, dev_path):
        """uuid -> characteristic path under dev_path."""
        r = {}
        for p, ifs in self.om.GetManagedObjects().items():
            if str(p).startswith(dev_path + '/') and CHRC_I in ifs:
                r[str(ifs[CHRC_I]['UUID'])] = str(p)
        return r

    def chrc(self, path):
        return dbus.Interface(self.bus.get_object(BLUEZ, path), CHRC_I)

    def read(self, path):
        return bytes_of(self.chrc(path).ReadValue({}, timeout=20))

    def write(self, path, data, kind='request'):
        self.chrc(path).WriteValue(dbus.Array(list(data), signature='y'),
                                   dbus.Dictionary({'type': kind}, signature='sv'), timeout=20)

    def start_notify(self, path):
        self.values[path] = []
        self.chrc(path).StartNotify(timeout=20)
        pump(10, lambda: bool(self.prop(path, CHRC_I, 'Notifying')))

    def disconnect(self, path):
        try:
            self.dev(path).Disconnect(timeout=20)
        except dbus.DBusException as e:
            log('Disconnect:', e)


class Fixtures:
    """The lab's fixture control API (guest/fixtures.py, org.bleexplr.Lab.Fixtures1)."""

    def __init__(self, bus=None):
        self.bus = bus or connect_bus()
        self.c = dbus.Interface(self.bus.get_object(CTL_NAME, CTL_PATH), CTL_I)

    def __getattr__(self, name):
        return getattr(self.c, name)

    def settle(self, timeout=10.0):
        ok = pump(timeout, lambda: bool(self.c.Settled()))
        if not ok:
            fail('fixture advertisements did not settle: %s' % self.state())

    def state(self):
        return {str(n): {str(k): (v if isinstance(v, (bool,)) else str(v)) for k, v in s.items()}
                for n, s in self.c.State().items()}


# ------------------------------------------------------------------ the guest's bluetoothd
def lab_sh(*args, timeout=60):
    sh = os.environ.get('BLEEXPLR_LAB_SH') or os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lab.sh')
    p = subprocess.run([sh] + list(args), capture_output=True, text=True, timeout=timeout)
    log('lab.sh', ' '.join(args), '->', p.returncode, (p.stdout + p.stderr).strip()[-300:])
    return p


def kill_bluetoothd(sig='TERM'):
    """Ends the guest's bluetoothd with SIGsig and waits until no live one is left (lab.sh bluetoothd kill)."""
    p = lab_sh('bluetoothd', 'kill', sig)
    if p.returncode != 0:
        fail('bluetoothd did not go away on SIG%s: %s' % (sig, (p.stdout + p.stderr).strip()))


def start_bluetoothd():
    """Starts bluetoothd again with the flags stage2 gave it (lab.sh bluetoothd start)."""
    p = lab_sh('bluetoothd', 'start')
    if p.returncode != 0:
        fail('bluetoothd did not start again: %s' % (p.stdout + p.stderr).strip())


def restart_bluetoothd(sig='TERM'):
    kill_bluetoothd(sig)
    start_bluetoothd()


# ------------------------------------------------------------------ peers with their own security manager
# guest/bumble_peers.py: Bumble hosts on the lab's radio link ("Lab Lock JW", "Lab Lock Passkey" showing
# PEER_PASSKEY, "Lab Lock Compare", "Lab Lock Reject" refusing every pairing), each serving ENC_CHAR (needs
# encryption) and AUTH_CHAR (needs MITM); "Lab Small MTU" (ATT MTU 23, no security) serves SMALL_CHAR (read,
# write, reliable write, up to 512 bytes).
ENC_CHAR = '6c616273-0000-4000-8000-00000000c001'
AUTH_CHAR = '6c616273-0000-4000-8000-00000000c002'
PEER_PASSKEY = '123456'
SMALL_CHAR = '6c616273-0000-4000-8000-00000000d001'


def peers_state():
    """What each peer saw (pairings, failures, passkeys shown, numbers compared), from /xfer/state/peers.json."""
    sh = os.environ.get('BLEEXPLR_LAB_SH') or os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lab.sh')
    top = subprocess.run([sh, 'cache-dir'], capture_output=True, text=True, timeout=10).stdout.strip()
    try:
        with open(os.path.join(top, 'run', 'xfer', 'state', 'peers.json')) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail('the lab has no Bumble peers (%s): LAB_CONTROLLERS=bumble starts them' % e)


class Peer:
    """One of the Bumble peers, as the central (hci0) knows it."""

    def __init__(self, name, bus=None):
        self.name = name
        self.address = peers_state()[name]['address']
        self.bus = bus or connect_bus()

    def state(self):
        return peers_state()[self.name]

    def device_path(self):
        return '/org/bluez/hci0/dev_' + self.address.replace(':', '_')

    def central_prop(self, prop):
        """Device1.<prop> of the peer on hci0, or None when hci0 does not know it."""
        try:
            return dbus.Interface(self.bus.get_object(BLUEZ, self.device_path()), PROPS).Get(DEV_I, prop)
        except dbus.DBusException:
            return None

    def forget(self):
        """Adapter1.RemoveDevice on hci0 (what the app's X does): the bond is gone on our side."""
        dbus.Interface(self.bus.get_object(BLUEZ, '/org/bluez/hci0'), ADAPTER_I).RemoveDevice(self.device_path())
        # A discovery still on (another client's, or one bluetoothd keeps after a client left) brings the
        # device object back from its next advert at once: unpaired, which is what counts.
        check(pump(10, lambda: not self.central_prop('Paired')), 'hci0 forgot %s (no longer paired)' % self.name)


class TmuxApp:
    """The real binary's full-screen app in a tmux of its own (`TmuxApp(cmd, 110, 32)`):
    keys() sends keys (`'-l', text` for literal text), screen() captures the pane,
    wait_screen(what, cond) polls until cond(screen) holds or fails the test, kill() ends it."""

    def __init__(self, cmd, width=100, height=30):
        self.sock = 'bxlab%d_%d' % (os.getpid(), id(self) % 10000)
        self.tmux('new-session', '-d', '-x', str(width), '-y', str(height), '-s', 'bx',
                  'env', 'TERM=xterm-256color', 'LANG=C.UTF-8', 'sh', '-c', cmd)

    def tmux(self, *args):
        return subprocess.run(['tmux', '-L', self.sock] + list(args), capture_output=True, text=True).stdout

    def keys(self, *k):
        self.tmux('send-keys', '-t', 'bx', *k)

    def screen(self):
        return self.tmux('capture-pane', '-p', '-t', 'bx')

    def wait_screen(self, what, cond, timeout=30):
        deadline = time.monotonic() + timeout
        s = ''
        while time.monotonic() < deadline:
            s = self.screen()
            if cond(s):
                log('ok: screen shows', what)
                return s
            time.sleep(0.2)
        fail('timed out waiting for %s; screen:\n%s' % (what, s))

    def kill(self):
        self.tmux('kill-server')

    @classmethod
    def bleexplr(cls, *args, width=110, height=32):
        """The app of bleexplr_bin() on the lab's bus and hci0 (Ctrl-C reaches only the app; the
        pane stays 30 s after it exits, showing EXIT=status)."""
        extra = ''.join(" '%s'" % a for a in args)
        return cls("trap : INT; '%s' --bus '%s' --adapter hci0%s; echo EXIT=$?; sleep 30"
                   % (bleexplr_bin(), bus_address(), extra), width, height)

    @staticmethod
    def rows(s):
        """The scan list's rows on screen `s` (not the top bar, whose filter "..." and links
        may hold the same text, nor the header, the message line and the status bar)."""
        return s.split('\n')[2:-3]

    def only(self, text, cond=None):
        """Types `/ text Enter`: the scan list filtered to what matches `text`, with a row that
        shows it (a device whose name changed matches no more: filter on its address then)."""
        self.keys('/')
        self.keys('C-u')
        self.keys('-l', text)
        self.keys('Enter')
        return self.wait_screen('the list filtered to ' + text + ', a row showing it',
                                lambda s: '/ filter:' not in s and 'filter "' in s
                                and any(text.lower() in r.lower() for r in self.rows(s)) and (cond is None or cond(s)))

    def enter_on(self, name, hide=None, timeout=45):
        """hci0 scanning, `name` heard, the list filtered to it (`hide` not shown with it), Enter."""
        self.wait_screen('hci0 scanning', lambda s: 'hci0 on · scanning' in s)
        self.wait_screen(name + ' in the scan list', lambda s: name in s, timeout)
        self.only(name, lambda s: hide is None or not any(hide in r for r in self.rows(s)))
        self.keys('Enter')

    def quit(self, timeout=30):
        """q, and the app exits 0."""
        self.keys('q')
        s = self.wait_screen('exit', lambda s: 'EXIT=' in s, timeout)
        check('EXIT=0' in s, 'q exits 0')
        return s


def adapter_address(name, bus=None):
    """The address of the lab's adapter `name` (hci0 the central, hci7 serve's, ...)."""
    props = dbus.Interface((bus or connect_bus()).get_object(BLUEZ, '/org/bluez/' + name), 'org.freedesktop.DBus.Properties')
    return str(props.Get('org.bluez.Adapter1', 'Address'))


def links_up(peer=None, bus=None):
    """The device paths whose LE link between hci0 and `peer` (an address; None: every peer) is up, on
    either side this one bluetoothd serves: hci0's dev_PEER and the peripheral adapter's dev_<hci0>."""
    bus = bus or connect_bus()
    central = adapter_address('hci0', bus).replace(':', '_')
    mine = '/org/bluez/hci0/dev_' + (peer.replace(':', '_') if peer else '')
    theirs = '/dev_' + central
    objs = dbus.Interface(bus.get_object(BLUEZ, '/'), OM).GetManagedObjects()
    return [str(p) for p, i in objs.items() if DEV_I in i and bool(i[DEV_I].get('Connected'))
            and ((str(p) == mine if peer else str(p).startswith(mine))
                 or (str(p).endswith(theirs) and not str(p).startswith('/org/bluez/hci0/')))]


def link_down(peer=None, timeout=20.0, bus=None):
    """Waits until the LE link between hci0 and `peer` (None: every peer) is down on BOTH sides that this
    one bluetoothd serves (links_up): the lab's fixtures and `serve` run on the same bluetoothd as the
    central, and the central's Connected=false can come first. A Connect made while the peripheral's side
    still held the last link hung without the link coming up, or came up with no services resolved
    (bluetoothd logged "already connected"), in CI and here. A lab artifact (a real peripheral is another
    machine), so tests that connect back to back wait for it. Returns the seconds waited."""
    bus = bus or connect_bus()
    t0 = time.monotonic()
    check(pump(timeout, lambda: not links_up(peer, bus)),
          'the link to %s is down on both sides (still up: %s)' % (peer or 'every peer', links_up(peer, bus)))
    return time.monotonic() - t0


def links_settle(timeout=10.0):
    """Before a command that may connect: gives a link that is going down (on either side: links_up) up to
    `timeout` s to go, then a moment; no wait when none is up, no failure when one stays (a test may hold a
    link on purpose). From the main thread only (pump runs GLib's loop). Before bleexplr on the host (bx) and
    in the guest (guest_bleexplr, GuestBackground): in CI (2026-12-06) the in-guest test's first connect, to
    the iTag 2 s after the headless test's last command had left it, timed out with "the link never came up"."""
    import threading
    if threading.current_thread() is not threading.main_thread():
        return
    try:
        if not links_up():
            return
        log('waited %.1f s for the last link to go down on both sides' % link_down(timeout=timeout))
        pump(0.5)
    except (TestFailure, dbus.DBusException) as e:   # bluetoothd away: the command says what it finds
        log('(a link stays up, or bluetoothd did not say: %s)' % e)


def tree_row(dev, uuid, bus=None):
    """Where characteristic `uuid` of device path `dev` is in bleexplr's device tree: services in
    path (handle) order, each followed by its characteristics (j that many times from the top)."""
    objs = dbus.Interface((bus or connect_bus()).get_object(BLUEZ, '/'), OM).GetManagedObjects()
    rows = []
    for svc in sorted(str(p) for p, i in objs.items() if str(p).startswith(dev + '/') and 'org.bluez.GattService1' in i):
        rows.append(None)
        rows += [str(i[CHRC_I]['UUID']).lower() for p, i in sorted(objs.items()) if CHRC_I in i and str(p).rsplit('/', 1)[0] == svc]
    check(uuid.lower() in rows, 'bluetoothd has characteristic %s under %s' % (uuid, dev))
    return rows.index(uuid.lower())


# ------------------------------------------------------------------ the bleexplr binary (on the host; guest_bleexplr: in the VM)
ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))


def bleexplr_bin():
    """.build/debug/bleexplr of this checkout, or $BLEEXPLR_BIN."""
    return os.environ.get('BLEEXPLR_BIN') or os.path.join(ROOT, '.build', 'debug', 'bleexplr')


def bx(*args, timeout=60):
    """Runs bleexplr on the lab's bus as the central (hci0), logging its output; first lets a link that is
    going down go (links_settle)."""
    links_settle()
    cmd = [bleexplr_bin(), '--bus', bus_address(), '--adapter', 'hci0'] + list(args)
    log('$', ' '.join(cmd[1:]))
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    for line in (p.stdout + p.stderr).splitlines():
        log('  |', line)
    return p


def jsonl(p):
    """The JSON lines a finished `bx` printed."""
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip()]


def guest_bleexplr(*args, timeout=120, env=None, times=False, adapter='hci0', pidfile=None):
    """Runs bleexplr INSIDE the VM on the guest's own system bus (a Unix socket, so file descriptors pass:
    AcquireNotify's socket) as the central (hci0), through `lab.sh guest-bleexplr` (the binary of bleexplr_bin()
    and its Swift runtime, copied in once per boot and build). env: variables for it (BLEEXPLR_NOTIFY='start').
    After `timeout` s it gets SIGTERM and returns 124. Returns a CompletedProcess (returncode, stdout, stderr);
    a library the guest lacks is status 127 with its name on stderr. times: a last stderr line
    `lab-guest-times: user 0m1.23s sys 0m0.45s`, bleexplr's CPU time in the guest. GuestBackground: the same,
    running while the test goes on."""
    links_settle()      # as bx: the guest's central is the same bluetoothd's hci0
    cmd = [_lab_sh_path(), 'guest-bleexplr'] + ['%s=%s' % kv for kv in (env or {}).items()] + ['--adapter', adapter] + list(args)
    log('$ (in the guest)', ' '.join(cmd[2:]))
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 90,
                       env=dict(os.environ, BLEEXPLR_BIN=bleexplr_bin(), LAB_GUEST_TIMEOUT=str(int(timeout)),
                                LAB_GUEST_TIMES='1' if times else '', LAB_GUEST_PIDFILE=pidfile or ''))
    for line in (p.stdout + p.stderr).splitlines():
        log('  guest |', line)
    return p


class GuestBackground:
    """guest_bleexplr(...) while the test goes on: `stop()` sends it SIGTERM (by its pid in the guest) and
    returns its CompletedProcess (None if it did not end)."""

    def __init__(self, *args, timeout=300, **kw):
        import threading
        links_settle()  # here, on the main thread (guest_bleexplr's own call is skipped on the thread below)
        self.name, self.out = 'bg-%d-%d' % (os.getpid(), id(self) % 100000), {}
        self.th = threading.Thread(target=lambda: self.out.setdefault(
            'p', guest_bleexplr(*args, timeout=timeout, pidfile=self.name, **kw)), daemon=True)
        self.th.start()

    def alive(self):
        return self.th.is_alive()

    def wait(self, timeout):
        """Its CompletedProcess once it ended by itself (None: still running after `timeout` s)."""
        self.th.join(timeout)
        return self.out.get('p')

    def stop(self, timeout=30):
        if self.alive():
            lab_sh('exec', 'kill -TERM $(cat /xfer/bleexplr/run/%s.pid)' % self.name, timeout=timeout)
        return self.wait(timeout)


def guest_file(name):
    """A file both sides see: (its path in the guest, for --record / --output; its path on the host)."""
    top = subprocess.run([_lab_sh_path(), 'cache-dir'], capture_output=True, text=True, timeout=10).stdout.strip()
    return '/xfer/bleexplr/run/' + name, os.path.join(top, 'run', 'xfer', 'bleexplr', 'run', name)


def _lab_sh_path():
    return os.environ.get('BLEEXPLR_LAB_SH') or os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lab.sh')


class Background:
    """A program running in the background, its stdout and stderr in files under `tmp`.

    `Background.bleexplr(tmp, 'watch', ...)` runs the binary against the lab's bus on hci0.
    `events()` parses stdout as JSON Lines; `wait_for(what, cond)` pumps the GLib loop until
    cond() holds; `stop()` sends SIGTERM and returns the exit status (SIGKILL after a timeout)."""

    def __init__(self, args, tmp, name='bg', env=None):
        self.args, self.name = list(args), name
        self.out_path, self.err_path = os.path.join(tmp, name + '.out'), os.path.join(tmp, name + '.err')
        log('$ (background %s)' % name, ' '.join(self.args))
        with open(self.out_path, 'wb') as o, open(self.err_path, 'wb') as e:
            self.p = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=o, stderr=e,
                                      env=dict(os.environ, **(env or {})))
        self.rc = None

    @classmethod
    def bleexplr(cls, tmp, *args, name='bleexplr', env=None):
        return cls([bleexplr_bin(), '--bus', bus_address(), '--adapter', 'hci0'] + list(args), tmp, name, env)

    def out(self):
        with open(self.out_path, encoding='utf-8', errors='replace') as f:
            return f.read()

    def err(self):
        with open(self.err_path, encoding='utf-8', errors='replace') as f:
            return f.read()

    def events(self):
        """stdout's complete JSON lines (a line still being written is left out)."""
        r = []
        for line in self.out().split('\n')[:-1]:
            if line.strip():
                try:
                    r.append(json.loads(line))
                except ValueError:
                    fail('%s printed a line that is not JSON: %r' % (self.name, line))
        return r

    def alive(self):
        return self.p.poll() is None

    def wait_for(self, what, cond, timeout=30.0):
        """Waits until cond() is true; fails (with the output so far) on timeout or if the program ends."""
        r = pump(timeout, lambda: cond() or not self.alive())
        if cond():
            log('ok:', what)
            return r
        self.dump()
        fail('%s: %s' % (what, ('%s ended with status %s' % (self.name, self.p.poll())) if not self.alive()
                         else 'not within %.0fs' % timeout))

    def stop(self, sig=signal.SIGTERM, timeout=15.0):
        if self.rc is not None:
            return self.rc
        if self.alive():
            self.p.send_signal(sig)
        try:
            self.rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            log('%s did not end within %.0fs of signal %d: SIGKILL' % (self.name, timeout, sig))
            self.p.kill()
            self.rc = self.p.wait()
        return self.rc

    def dump(self):
        for label, text in (('stdout', self.out()), ('stderr', self.err())):
            for line in text.splitlines():
                log('  %s %s |' % (self.name, label), line)


def main(fn):
    """Run a test function with a Central and Fixtures; exit 0 on success, 1 on failure, 2 on error."""
    try:
        fn()
    except TestFailure as e:
        log('FAIL:', e)
        sys.exit(1)
    except dbus.DBusException as e:
        log('FAIL (D-Bus error):', e.get_dbus_name(), e.get_dbus_message())
        sys.exit(1)
    log('PASS')
    sys.exit(0)
