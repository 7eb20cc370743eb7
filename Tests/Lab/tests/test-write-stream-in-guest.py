#!/usr/bin/python3
# lab-timeout: 600
"""`bleexplr write --file` against a real bluetoothd, both ends inside the VM on the guest's Unix system bus
(file descriptors pass there, so AcquireWrite's socket works; on the host's TCP bus it cannot): `serve --receive`
on hci7 (run in the guest, as test-bleexplr-in-guest's rate part runs serve), the writer on hci0.

64 KiB, framed seq, through AcquireWrite and through WriteValue (BLEEXPLR_WRITE=value), once each (twice each,
alternating, with LAB_GUEST_RATE=1, for the figures):
  - write exits 0; its JSON line and its stderr say the path asked for, and the MTU;
  - the file serve kept is identical (sha256) after each run, and serve's receive-total at the end counts every
    write each run made (no write lost); a SIGUSR1 midway prints receive-progress;
  - the figures, printed, never asserted: writes/s, kbit/s, the time to hand the file to bluetoothd, and the
    writer's CPU time (bash's `times` in the guest) per write.
Then the same 64 KiB unframed through AcquireWrite to a raw `serve --receive` (appended as it comes): identical."""
import hashlib, json, os, re, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *

CHAR = '626c6578-0000-4000-8000-00000000a002'
PATH = {'acquire': re.compile(r'writes through a socket \(AcquireWrite\), MTU (\d+)'),
        'value': re.compile(r'writes through WriteValue \(type command\), MTU (\d+), \d+ bytes a write: BLEEXPLR_WRITE=value')}
PAYLOAD = bytes((i * 131 + (i >> 8) * 7) & 0xFF for i in range(64 * 1024))


def cpu_seconds(stderr):
    m = re.search(r'lab-guest-times: user (\d+)m([\d.]+)s sys (\d+)m([\d.]+)s', stderr)
    return 60 * int(m.group(1)) + float(m.group(2)) + 60 * int(m.group(3)) + float(m.group(4)) if m else float('nan')


def link_gone(bus, addr):
    """The link to `addr` down on both sides bluetoothd serves (labkit.link_down), then a moment."""
    link_down(addr, bus=bus)
    pump(1)


def serve(bus, recv, *framing):
    srv = GuestBackground('serve', '--receive', recv, '--char', CHAR, *framing, '--json', adapter='hci7', timeout=1500, times=True)
    adv = dbus.Interface(bus.get_object(BLUEZ, '/org/bluez/hci7'), PROPS)
    ok = pump(60, lambda: int(adv.Get('org.bluez.LEAdvertisingManager1', 'ActiveInstances')) > 0 or not srv.alive())
    check(ok and srv.alive(), 'serve --receive %s in the guest advertises on hci7' % ' '.join(framing or ('(raw)',)))
    return srv


def received(host_path, what):
    """Waits for the file serve keeps to hold the payload; checks it is identical."""
    ok = pump(30, lambda: os.path.exists(host_path) and os.path.getsize(host_path) >= len(PAYLOAD))
    got = open(host_path, 'rb').read() if os.path.exists(host_path) else b''
    check(ok and hashlib.sha256(got).hexdigest() == hashlib.sha256(PAYLOAD).hexdigest(),
          '%s: serve kept %d bytes, identical to the %d sent (sha256)' % (what, len(got), len(PAYLOAD)))


def write(addr, gsend, how, framing):
    env = {'BLEEXPLR_WRITE': 'value'} if how == 'value' else None
    args = ['write', addr, CHAR, '--file', gsend, '--json'] + (['--framing', framing] if framing else [])
    p = guest_bleexplr(*args, timeout=300, env=env, times=True)
    what = '%s, %s' % (how, framing or 'raw')
    check(p.returncode == 0, '%s: write --file exits 0 (%s)' % (what, p.returncode))
    line = jsonl(p)[-1]
    m = PATH[how].search(p.stderr)
    check(m is not None and line.get('path') == ('AcquireWrite' if how == 'acquire' else 'WriteValue'),
          '%s: through %s, as stderr says: %s' % (what, line.get('path'), m.group(0) if m else p.stderr.strip()[-200:]))
    check(int(m.group(1)) == line.get('mtu') and line.get('bytes') == len(PAYLOAD) and line.get('confirmed') is True,
          '%s: %d bytes, MTU %s, confirmed by a read after the last write' % (what, line.get('bytes'), line.get('mtu')))
    cpu = cpu_seconds(p.stderr)
    log('WRITE %-7s %-4s %4d writes of %3d bytes in %6.2f s = %5.0f writes/s, %6.1f kbit/s (handed to bluetoothd in %.3f s); '
        'bleexplr CPU %.2f s (%.2f ms a write)' % (how, framing or 'raw', line['chunks'], line['chunkSize'], line['seconds'],
                                                 line['chunksPerSecond'], line['kbitPerSecond'], line['queuedSeconds'],
                                                 cpu, 1000 * cpu / line['chunks']))
    return line


def usr1(srv):
    """SIGUSR1 to serve itself (the pidfile holds `timeout`'s pid, which SIGUSR1 would end)."""
    lab_sh('exec', 'P=$(cat /xfer/bleexplr/run/%s.pid); kill -USR1 $(cat /proc/$P/task/$P/children)' % srv.name, timeout=30)


def totals(p, what):
    lines = [l for l in jsonl(p) if l.get('event', '').startswith('receive')]
    total = [l for l in lines if l['event'] == 'receive-total']
    check(p.returncode == 0 and len(total) == 1, '%s: serve exits 0 with one receive-total line (%s)' % (what, p.returncode))
    log('SERVE %s: %s; serve CPU %.2f s' % (what, json.dumps(total[0]), cpu_seconds(p.stderr)))
    return lines, total[0]


def test():
    check(os.access(bleexplr_bin(), os.X_OK), 'bleexplr binary at %s (build it first)' % bleexplr_bin())
    bus = connect_bus()
    addr = adapter_address('hci7', bus)
    # First: a new build is copied into the share (its run/ folder made afresh) before the files go there.
    p = guest_bleexplr('--version', timeout=60)
    check(p.returncode == 0 and p.stdout.startswith('bleexplr'), 'the binary runs in the guest: %s' % p.stdout.strip())
    gsend, hsend = guest_file('wsend-%d.bin' % os.getpid())
    with open(hsend, 'wb') as f:
        f.write(PAYLOAD)
    grecv, hrecv = guest_file('wrecv-%d.bin' % os.getpid())

    srv = serve(bus, grecv, '--framing', 'seq')
    made = []
    try:
        runs = ('acquire', 'value') * (2 if os.environ.get('LAB_GUEST_RATE') == '1' else 1)
        for i, how in enumerate(runs):
            # Removed in the guest, where serve writes it (a file removed on the host under 9p stays in the guest's cache).
            lab_sh('exec', 'rm -f %s' % grecv, timeout=30)
            check(pump(10, lambda: not os.path.exists(hrecv)), 'run %d: the last run\'s file is gone' % (i + 1))
            made.append(write(addr, gsend, how, 'seq')['chunks'])
            received(hrecv, '%s, seq, run %d' % (how, i + 1))
            if i == 0:
                usr1(srv)
            link_gone(bus, addr)
    finally:
        p = srv.stop(60)
    lines, total = totals(p, 'seq')
    check(any(l['event'] == 'receive-progress' for l in lines), 'SIGUSR1 printed receive-progress')
    done = [l for l in lines if l['event'] == 'receive-done']
    check(len(done) == len(made) and all(int(l['bytes']) == len(PAYLOAD) for l in done),
          'serve put %d messages of %d bytes back together: %s' % (len(made), len(PAYLOAD), [l.get('bytes') for l in done]))
    check(int(total['writes']) == sum(made) and total.get('missing') == '0',
          'serve counted every write: %s of %d (%s missing at the end)' % (total['writes'], sum(made), total.get('missing')))

    grecv, hrecv = guest_file('wrecv-raw-%d.bin' % os.getpid())
    srv = serve(bus, grecv)
    try:
        line = write(addr, gsend, 'acquire', None)
        received(hrecv, 'acquire, raw')
        link_gone(bus, addr)
    finally:
        p = srv.stop(60)
    _, total = totals(p, 'raw')
    check(int(total['writes']) == line['chunks'] and int(total['bytes']) == len(PAYLOAD),
          'raw: serve counted %s writes, %s bytes' % (total['writes'], total['bytes']))


main(test)
