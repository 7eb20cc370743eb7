#!/usr/bin/python3
# lab-timeout: 600
"""The real binary INSIDE the VM, on the guest's own system bus (a Unix socket: file descriptors pass), so
`notify` goes through AcquireNotify against a real bluetoothd (on the host's TCP bus it cannot; there it
is StartNotify always). labkit.guest_bleexplr (lab.sh guest-bleexplr) copies the debug build and its Swift
runtime into the guest.

Lab iTag's FFE1 (hci2), three presses with values told apart (11 22 33), recorded:
  - the values arrive, in order; stderr says "notifications through a socket (AcquireNotify), MTU N";
  - bluetoothd says so too: NotifyAcquired is true on hci0's FFE1 while notify runs, and N is its MTU;
  - the recording validates in shape: one notify-acquired line with that MTU, before the three values.
With BLEEXPLR_NOTIFY=start the same presses arrive through StartNotify: no AcquireNotify line, bluetoothd's
Notifying true and NotifyAcquired false. Then BlueZ's example server's Heart Rate Measurement (hci1, a value
a second) the same two ways: three values each, decoded to bpm. Then `serve --stream` in the guest: bluetoothd
takes its notifications' socket (AcquireNotify on the peripheral side) and the chunks are the link's MTU - 3.
With LAB_GUEST_RATE=1, figures (no timing asserted): notifications per second and bleexplr's CPU time
through each path, from Lab Stream (hci3) and from `bleexplr serve --stream` run in the guest on hci7."""
import json, os, re, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *

ACQ = re.compile(r'notifications through a socket \(AcquireNotify\), MTU (\d+)')
PRESSES = [b'\x11', b'\x22', b'\x33']
FFE1, HRM = u16('ffe1'), u16('2a37')


def chrc_props(bus, address, uuid):
    """bluetoothd's GattCharacteristic1 properties of `uuid` on hci0's device `address` (None: not there)."""
    dev = '/org/bluez/hci0/dev_' + address.replace(':', '_')
    for p, ifs in dbus.Interface(bus.get_object(BLUEZ, '/'), OM).GetManagedObjects().items():
        if str(p).startswith(dev + '/') and CHRC_I in ifs and str(ifs[CHRC_I]['UUID']).lower() == uuid:
            return ifs[CHRC_I]


def link_gone(bus, addr):
    """Between two runs: the link to `addr` down on both sides bluetoothd serves (labkit.link_down), then
    a moment. (On 5.82 a connect started 1.5 s after hci0's side alone said it was down timed out in 2
    of 4 CI runs, bluetoothd saying "device_add_connection() ... already connected".)"""
    log('link to %s down on both sides after %.1f s' % (addr, link_down(addr, bus=bus)))
    pump(1)


def itag(bus, fx, addr, how, record=None):
    """notify FFE1 --count 3 in the guest while the tag is pressed three times; returns (process, bluetoothd's props)."""
    env = {'BLEEXPLR_NOTIFY': 'start'} if how == 'start' else None
    rec = ['--record', record] if record else []
    bg = GuestBackground(*rec, 'notify', addr, 'FFE1', '--count', str(len(PRESSES)), '--json', timeout=90, env=env)
    ok = pump(75, lambda: bool(fx.State()['itag']['key_notifying']) or not bg.alive())
    check(ok and bg.alive(), '%s: bleexplr in the guest subscribed to FFE1 (the tag sees its CCCD written)' % how)
    props = pump(10, lambda: chrc_props(bus, addr, FFE1))
    check(props is not None, '%s: bluetoothd has FFE1 under hci0' % how)
    for v in PRESSES:
        check(bool(fx.PressValue(dbus.Array(list(v), signature='y'))), '%s: press %s notified' % (how, v.hex()))
        time.sleep(0.5)
    p = bg.wait(60)
    check(p is not None and p.returncode == 0, '%s: notify --count %d exits 0 (%s)' % (how, len(PRESSES), p and p.returncode))
    got = [v['hex'] for v in jsonl(p)]
    check(got == [v.hex() for v in PRESSES], '%s: the presses arrive in order: %s' % (how, ' '.join(got)))
    return p, props


def heart_rate(addr, how):
    env = {'BLEEXPLR_NOTIFY': 'start'} if how == 'start' else None
    p = guest_bleexplr('notify', addr, '2A37', '--count', '3', '--json', timeout=90, env=env)
    check(p.returncode == 0, '%s: Heart Rate Measurement notify --count 3 exits 0' % how)
    vals = jsonl(p)
    check(len(vals) == 3 and all(' bpm' in (v.get('decoded') or '') for v in vals),
          '%s: three values, decoded to bpm (%s)' % (how, ', '.join(str(v.get('decoded')) for v in vals)))
    m = ACQ.search(p.stderr)
    check(bool(m) == (how == 'acquire'), '%s: %s' % (
        how, 'stderr says AcquireNotify, MTU %s' % m.group(1) if m else 'no AcquireNotify line on stderr'))


SERVE_CHAR = '626c6578-0000-4000-8000-00000000a001'


def rate(addr, char, payload, how, sender):
    """Figures only: `notify --until EOM` in the guest through `how`; notifications/s and bleexplr's CPU time."""
    env = {'BLEEXPLR_NOTIFY': 'start'} if how == 'start' else None
    p = guest_bleexplr('notify', addr, char, '--until', 'EOM', '--json', timeout=300, env=env, times=True)
    check(p.returncode == 0, '%s, %s: notify --until EOM exits 0' % (sender, how))
    msg = jsonl(p)[-1]
    check(msg.get('hex') == payload.hex(), '%s, %s: the %d bytes arrive whole' % (sender, how, len(payload)))
    check(bool(ACQ.search(p.stderr)) == (how == 'acquire'), '%s, %s: through the path asked for' % (sender, how))
    cpu = re.search(r'lab-guest-times: user (\d+)m([\d.]+)s sys (\d+)m([\d.]+)s', p.stderr)
    cpu = 60 * int(cpu.group(1)) + float(cpu.group(2)) + 60 * int(cpu.group(3)) + float(cpu.group(4)) if cpu else float('nan')
    secs = float(msg['seconds'])
    log('RATE %s %-7s %5d notifications of %d bytes in %6.2f s = %4.0f notifications/s; bleexplr CPU %.2f s (%.2f ms a notification)' % (
        sender, how, msg['chunks'], len(payload) // max(1, msg['chunks'] - 1), secs, msg['chunks'] / secs if secs else 0,
        cpu, 1000 * cpu / msg['chunks']))


def serve_through_socket(bus):
    """`serve --stream` in the guest on hci7, its bus passing descriptors: bluetoothd takes the notifications'
    socket (AcquireNotify on serve's side), so the chunks are that link's MTU - 3 from the first (512 at
    MTU 517; over StartNotify only an earlier ReadValue or WriteValue can have said the MTU). The central is bleexplr in the guest
    (AcquireNotify on its side too); the file arrives whole. Then serve with BLEEXPLR_NOTIFY=start (StartNotify)."""
    data = bytes((i * 29 + (i >> 9)) & 0xFF for i in range(16 * 1024))
    gpath, hpath = guest_file('socket-%d.bin' % os.getpid())
    with open(hpath, 'wb') as f:
        f.write(data)
    addr = adapter_address('hci7', bus)
    adv = dbus.Interface(bus.get_object(BLUEZ, '/org/bluez/hci7'), PROPS)
    for how, chunk in (('socket', 512), ('start', None)):
        env = {'BLEEXPLR_NOTIFY': 'start'} if how == 'start' else None
        srv = GuestBackground('serve', '--stream', gpath, '--char', SERVE_CHAR, '--json', adapter='hci7', timeout=300, env=env)
        try:
            check(pump(60, lambda: int(adv.Get('org.bluez.LEAdvertisingManager1', 'ActiveInstances')) > 0 or not srv.alive()),
                  'serve (%s) in the guest advertises on hci7' % how)
            p = guest_bleexplr('notify', addr, SERVE_CHAR, '--until', 'EOM', '--json', timeout=180)
            check(p.returncode == 0 and jsonl(p)[-1].get('hex') == data.hex(), 'serve (%s): the 16 KiB arrive whole' % how)
        finally:
            p = srv.stop()
        lines = jsonl(p) if p else []
        sub = [l for l in lines if l.get('event') == 'subscribed']
        start = [l for l in lines if l.get('event') == 'stream-start']
        check(len(sub) == 1 and (sub[0].get('via') == 'socket') == (how == 'socket'),
              'serve (%s): subscribed %s: %s' % (how, 'through the socket bluetoothd acquired' if how == 'socket' else 'by StartNotify', sub))
        if chunk:
            check(len(start) == 1 and start[0].get('chunk') == str(chunk), 'serve (%s): chunks of %d bytes (%s)' % (how, chunk, start))
        else:   # the MTU of a ReadValue before the subscription (the central reads 0x2901), or 20
            log('serve (%s): chunks of %s bytes' % (how, start and start[0].get('chunk')))
        link_gone(bus, addr)


def rates(bus, fx, stream):
    """Lab Stream (20-byte chunks every LAB_STREAM_GAP_MS, 5 ms) and `bleexplr serve --stream` on hci7 in the
    guest (its own pace: 8 notifications, then a Ping to bluetoothd), each path twice, alternating."""
    payload = bytes((i * 7 + 3) & 0xFF for i in range(20 * 600))
    for how in ('acquire', 'start', 'acquire', 'start'):
        pump(1.5)
        fx.Stream(dbus.Array(list(payload), signature='y'))        # sent once a central subscribes
        rate(stream, STREAM_DATA, payload, how, 'Lab Stream')
    big = bytes((i * 131 + (i >> 8) * 7) & 0xFF for i in range(64 * 1024))
    gpath, hpath = guest_file('stream-%d.bin' % os.getpid())
    with open(hpath, 'wb') as f:
        f.write(big)
    srv = GuestBackground('serve', '--stream', gpath, '--char', SERVE_CHAR, '--json', adapter='hci7', timeout=900)
    try:
        adv = dbus.Interface(bus.get_object(BLUEZ, '/org/bluez/hci7'), PROPS)
        check(pump(60, lambda: int(adv.Get('org.bluez.LEAdvertisingManager1', 'ActiveInstances')) > 0 or not srv.alive()),
              'serve --stream in the guest advertises on hci7')
        addr = adapter_address('hci7', bus)
        for how in ('acquire', 'start', 'acquire', 'start'):
            pump(1.5)
            rate(addr, SERVE_CHAR, big, how, 'serve')
    finally:
        p = srv.stop()
        log('serve in the guest ended with status %s' % (p and p.returncode))


def test():
    check(os.access(bleexplr_bin(), os.X_OK), 'bleexplr binary at %s (build it first)' % bleexplr_bin())
    bus, fx = connect_bus(), Fixtures()
    tag, hr, stream = (adapter_address(h, bus) for h in ('hci2', 'hci1', 'hci3'))
    p = guest_bleexplr('--version', timeout=60)
    check(p.returncode == 0 and p.stdout.startswith('bleexplr'), 'the binary runs in the guest: %s' % p.stdout.strip())

    rec_guest, rec_host = guest_file('acquire-%d.jsonl' % os.getpid())
    p, props = itag(bus, fx, tag, 'acquire', rec_guest)
    m = ACQ.search(p.stderr)
    check(m is not None, 'stderr says: %s' % (m.group(0) if m else p.stderr.strip()[-200:]))
    check(bool(props.get('NotifyAcquired')), "bluetoothd: hci0's FFE1 NotifyAcquired = true while notify ran")
    mtu = int(m.group(1))
    check('MTU' in props and int(props['MTU']) == mtu, "the MTU said (%d) is bluetoothd's GattCharacteristic1.MTU (%s)"
          % (mtu, props.get('MTU')))
    with open(rec_host) as f:
        lines = [json.loads(l) for l in f if l.strip()]
    acq = [l for l in lines if l.get('type') == 'notify-acquired']
    notes = [l['hex'] for l in lines if l.get('type') == 'notification']
    check(len(acq) == 1 and acq[0].get('mtu') == mtu and acq[0].get('uuid') == FFE1,
          'the recording has one notify-acquired line for FFE1 with mtu %d: %s' % (mtu, acq))
    check(notes == [v.hex() for v in PRESSES] and lines.index(acq[0]) < next(
        i for i, l in enumerate(lines) if l.get('type') == 'notification'),
          'and the three values after it: %s' % ' '.join(notes))
    link_gone(bus, tag)    # notify waits for Connected=false; the kernel ends the link after

    p, props = itag(bus, fx, tag, 'start')
    check(ACQ.search(p.stderr) is None and 'AcquireNotify' not in p.stderr, 'BLEEXPLR_NOTIFY=start: no AcquireNotify line')
    check(bool(props.get('Notifying')) and not bool(props.get('NotifyAcquired')),
          'bluetoothd: Notifying = true, NotifyAcquired = false (%s, %s)' % (props.get('Notifying'), props.get('NotifyAcquired')))
    link_gone(bus, tag)

    heart_rate(hr, 'acquire')
    link_gone(bus, hr)
    heart_rate(hr, 'start')

    link_gone(bus, hr)
    serve_through_socket(bus)

    if os.environ.get('LAB_GUEST_RATE') == '1':
        rates(bus, fx, stream)
    else:
        log('(LAB_GUEST_RATE=1 also measures notifications per second through each path: ~4 minutes more)')


main(test)
