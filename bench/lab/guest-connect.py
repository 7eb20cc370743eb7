#!/usr/bin/python3
"""Inside the lab's guest, on its own system bus: one connection to ADDR on hci0, timed.

    python3 guest-connect.py bluetoothctl|bluetoothctl-shell|dbus ADDR [TIMEOUT_S]

bluetoothctl: bluetoothctl is spawned at t0 and given `select <hci0>` and `connect ADDR` on its
stdin (it reads them once it has its objects): `bluetoothctl connect ADDR` as a person types it,
start-up, bus connection and GetManagedObjects included. The select is needed because the lab has
eight controllers and bluetoothctl's default one is not always hci0 ("Device ... not available").
bluetoothctl-shell: bluetoothctl is started on a pty first and left to settle (prompt shown, 1 s);
at t0 `connect ADDR` is typed into it, as into a bluetoothctl that a person already has open
(the full-screen app is open too when Enter is pressed), hci0 selected; "reply" is its
"Connection successful".
dbus: Device1.Connect() is called (asynchronously, from this already connected process) at t0:
the floor, what any client of bluetoothd waits at least.

The PropertiesChanged match on the device is in place before t0 (AddMatch is a blocking call in
dbus-python). Prints one JSON line: milliseconds from t0 to Connected=true ("connected"), to
ServicesResolved=true ("resolved", the figure), to Connect's reply or bluetoothctl's "Connection
successful" ("reply"), and bluetoothctl's lines about the connection. Exit 0 when ServicesResolved came, 1 otherwise.
"""
import json, os, pty, re, subprocess, sys, time
import dbus, dbus.mainloop.glib
from gi.repository import GLib

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
DEV, PROPS = 'org.bluez.Device1', 'org.freedesktop.DBus.Properties'

mode, addr = sys.argv[1], sys.argv[2].upper()
limit = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0
bus = dbus.SystemBus()
path = '/org/bluez/hci0/dev_' + addr.replace(':', '_')
obj = bus.get_object('org.bluez', path)
out = {'tool': mode, 'address': addr}
try:
    before = dbus.Interface(obj, PROPS).GetAll(DEV)
except dbus.DBusException as e:
    print(json.dumps(dict(out, error='bluetoothd does not know %s: %s' % (path, e.get_dbus_message()))))
    sys.exit(1)
central = str(dbus.Interface(bus.get_object('org.bluez', '/org/bluez/hci0'), PROPS).Get('org.bluez.Adapter1', 'Address'))
if before.get('Connected'):
    print(json.dumps(dict(out, error='already connected at the start')))
    sys.exit(1)

loop = GLib.MainLoop()
marks = {}
t0 = None


def mark(name):
    if name not in marks:
        marks[name] = time.monotonic()


def done():
    return 'resolved' in marks and (mode != 'dbus' or 'reply' in marks or 'error' in marks)


def changed(iface, ch, inv):
    if iface != DEV:
        return
    if ch.get('Connected'):
        mark('connected')
    if ch.get('ServicesResolved'):
        mark('resolved')
    if done():
        loop.quit()


bus.add_signal_receiver(changed, 'PropertiesChanged', PROPS, 'org.bluez', path)
proc = None


def replied(*_):
    mark('reply')
    if done():
        loop.quit()


def failed(e):
    marks['error'] = time.monotonic()
    out['connect_error'] = '%s: %s' % (e.get_dbus_name(), e.get_dbus_message())
    loop.quit()


shell, buf = None, bytearray()


def drain(fd, cond):   # always read the pty: a full one would stop bluetoothctl (the scan's [CHG] lines)
    try:
        d = os.read(fd, 65536)
    except OSError:
        return False
    if not d:
        return False
    buf.extend(d)
    if t0 is not None and b'Connection successful' in buf[since[0]:]:
        mark('reply')
        if done():
            loop.quit()
    return True


since = [0]
if mode == 'bluetoothctl-shell':
    shell, fd = pty.fork()
    if shell == 0:
        os.execvp('bluetoothctl', ['bluetoothctl'])
    GLib.io_add_watch(fd, GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, drain)
    ctx, end = GLib.MainContext.default(), time.monotonic() + 20
    while time.monotonic() < end and not re.search(rb'\]#|# |\]> ', bytes(buf)):   # 5.66 "[bluetooth]#", 5.82 "[bluetoothctl]>"
        ctx.iteration(False) or time.sleep(0.01)
    os.write(fd, ('select %s\n' % central).encode())
    settle = time.monotonic() + 1.0
    while time.monotonic() < settle:
        ctx.iteration(False) or time.sleep(0.01)
    since[0] = len(buf)

t0 = time.monotonic()
if mode == 'bluetoothctl-shell':
    os.write(fd, ('connect %s\n' % addr).encode())
elif mode == 'bluetoothctl':
    proc = subprocess.Popen(['bluetoothctl'], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    proc.stdin.write(('select %s\nconnect %s\n' % (central, addr)).encode())
    proc.stdin.flush()   # kept open until ServicesResolved: at EOF bluetoothctl quits, its connect unfinished
    GLib.io_add_watch(proc.stdout.fileno(), GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, drain)
elif mode == 'dbus':
    dbus.Interface(obj, DEV).Connect(reply_handler=replied, error_handler=failed, timeout=limit)
else:
    sys.exit('mode must be bluetoothctl, bluetoothctl-shell or dbus')
GLib.timeout_add(int(limit * 1000), loop.quit)
loop.run()
if mode != 'dbus':
    end = time.monotonic() + 1.0   # its "Connection successful", when it comes after ServicesResolved
    while time.monotonic() < end and 'reply' not in marks:
        GLib.MainContext.default().iteration(False) or time.sleep(0.01)
if proc is not None:
    proc.stdin.close()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
    buf.extend(proc.stdout.read())
    out['exit_status'] = proc.returncode
if shell is not None:
    os.write(fd, b'quit\n')
    end = time.monotonic() + 5
    while time.monotonic() < end and os.waitpid(shell, os.WNOHANG) == (0, 0):
        GLib.MainContext.default().iteration(False) or time.sleep(0.01)
if mode != 'dbus':
    text = re.sub(r'\x1b\[[0-9;?]*[A-Za-z]|[\x01\x02]', '', bytes(buf[since[0]:]).decode('utf-8', 'replace'))
    out['output'] = [l for l in (x.strip() for x in text.replace('\r', '\n').split('\n'))
                     if l and ('onnect' in l or 'ServicesResolved' in l or 'rror' in l or 'not available' in l)][-6:]
for k, v in marks.items():
    out[k] = round((v - t0) * 1000, 1)
try:
    out['connected_after'] = bool(dbus.Interface(obj, PROPS).Get(DEV, 'Connected'))
except dbus.DBusException:
    out['connected_after'] = False
print(json.dumps(out))
sys.exit(0 if 'resolved' in marks else 1)
