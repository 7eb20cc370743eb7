#!/usr/bin/python3
"""Long and reliable writes through a real bluetoothd, at ATT MTU 23. "Lab Small MTU" (a Bumble host,
guest/bumble_peers.py) answers every Exchange MTU with 23, so a value over 20 bytes cannot go in one Write
Request: bluetoothd must split it into Prepare Write Requests (18 bytes each) and an Execute Write.
  1. `services --json` says MTU 23 and the characteristic has reliable-write (its 0x2900 says so);
  2. `write` of 100 bytes exits 0 saying it was long; the peer got the whole value in one commit, from
     Prepare Write Requests and an Execute Write, and a read (Read + Read Blob) gives the 100 bytes back;
  3. the same with `--type reliable` and another 100 bytes (bluetoothd checks each echoed part);
  4. a btmon capture of the test's own shows hci0 sending those PDUs: Exchange MTU, Prepare Write Requests
     of at most 18 bytes of value at increasing offsets covering the 100 bytes, Execute Write (flags 0x01),
     and Read Blob Requests for the reads back (22 bytes a Read Response, then 22 a blob)."""
import os, subprocess, sys, tempfile, shutil
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *
import btsnoop

SIZE = 100


class Capture:
    """btmon -w into the guest's tmpfs (the lab's 9p share loses packets under load), copied out at stop()."""

    def __init__(self):
        self.guest_path = '/run/btmon-long-write.snoop'
        top = subprocess.run([os.environ.get('BLEEXPLR_LAB_SH', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lab.sh')),
                              'cache-dir'], capture_output=True, text=True).stdout.strip()
        self.host_path = os.path.join(top, 'run', 'xfer', 'log', 'btmon-long-write.snoop')
        lab_sh('exec', 'rm -f %s; btmon -w %s > /dev/null 2>&1 & echo $! > /run/btmon-long-write.pid; sleep 1'
               % (self.guest_path, self.guest_path))

    def stop(self):
        lab_sh('exec', 'kill $(cat /run/btmon-long-write.pid); sleep 0.5; cp %s /xfer/log/' % self.guest_path)
        keep = os.path.join(tempfile.mkdtemp(prefix='bx-long-write-'), 'btmon.snoop')
        shutil.copy(self.host_path, keep)
        log('capture kept: %s' % keep)
        return btsnoop.att_sent(keep, 0)


def long_write(peer, data, *extra):
    """One write of `data` and its checks: (stdout JSON, the peer's prepared and executed counts before)."""
    before = peer.state()
    p = bx('write', peer.address, SMALL_CHAR, data.hex(), '--json', *extra, timeout=90)
    w = jsonl(p)[0] if p.returncode == 0 and p.stdout.strip() else {}
    kind = ' '.join(extra) or 'default'
    check(p.returncode == 0, '%s write of %d bytes exits 0 (%s)' % (kind, len(data), p.stderr.strip()[-200:]))
    check(w.get('long') is True, 'and says it was long (%r)' % w)
    after = peer.state()
    check(after['writes'][len(before['writes']):] == [data.hex()], 'the peer got the %d bytes whole, in one commit' % len(data))
    prepared = after['prepared'] - before['prepared']
    check(prepared >= -(-len(data) // 18) and after['executed'] == before['executed'] + 1,
          'from %d Prepare Write Requests and one Execute Write' % prepared)
    p = bx('read', peer.address, SMALL_CHAR, '--json', timeout=90)
    check(p.returncode == 0 and jsonl(p)[0]['hex'] == data.hex(), 'the %d bytes read back identical' % len(data))
    return w


def test():
    check(os.access(bleexplr_bin(), os.X_OK), 'bleexplr binary at %s (build it first)' % bleexplr_bin())
    peer = Peer('Lab Small MTU')
    cap = Capture()
    try:
        p = bx('services', peer.address, '--json', timeout=90)
        check(p.returncode == 0, 'services exits 0')
        lines = jsonl(p)
        check({l.get('mtu') for l in lines} == {23}, 'every services line says MTU 23 (%s)' % sorted({str(l.get('mtu')) for l in lines}))
        chars = [c for l in lines for c in l['characteristics'] if c['uuid'] == SMALL_CHAR]
        check(len(chars) == 1 and 'reliable-write' in chars[0]['properties'], 'the characteristic has reliable-write (%r)'
              % (chars[0]['properties'] if chars else None))
        check(peer.state()['mtu'][-1:] == [23], 'the peer settled on MTU 23 (%s)' % peer.state()['mtu'][-3:])

        first = bytes((i * 7 + 3) & 0xFF for i in range(SIZE))
        w = long_write(peer, first)
        check(w.get('writeType') in (None, 'request'), 'as a write request (%r)' % w.get('writeType'))
        second = bytes((255 - i) & 0xFF for i in range(SIZE))
        w = long_write(peer, second, '--type', 'reliable')
        check(w.get('writeType') == 'reliable', 'as a reliable write (%r)' % w.get('writeType'))
    finally:
        sent = cap.stop()
    names = [btsnoop.ATT_NAMES.get(op, '0x%02x' % op) for op, _ in sent]
    log('hci0 sent on ATT: %s' % ', '.join(names))
    check(0x02 in [op for op, _ in sent], 'btmon: hci0 sent Exchange MTU')
    for data in (first, second):
        # the Prepare Write Requests that carry this value: handle, offset, part
        parts = [(int.from_bytes(pdu[1:3], 'little'), int.from_bytes(pdu[3:5], 'little'), pdu[5:])
                 for op, pdu in sent if op == 0x16]
        mine = [(h, o, v) for h, o, v in parts if v and data[o:o + len(v)] == v]
        got = bytearray(SIZE)
        for _, o, v in mine:
            got[o:o + len(v)] = v
        check(bytes(got) == data and max(len(v) for _, _, v in mine) <= 18,
              'btmon: Prepare Write Requests of at most 18 bytes carried all %d bytes (%d PDUs, offsets %s)'
              % (SIZE, len(mine), [o for _, o, _ in mine]))
    execs = [pdu for op, pdu in sent if op == 0x18]
    check(len(execs) >= 2 and all(pdu[1:2] == b'\x01' for pdu in execs[-2:]), 'btmon: Execute Write (flags 0x01) after each')
    check(not any(op == 0x12 and len(pdu) > 23 for op, pdu in sent), 'btmon: no Write Request over the MTU')
    check(sum(1 for op, _ in sent if op == 0x0C) >= 2 * (-(-(SIZE - 22) // 22)),
          'btmon: the reads back took Read Blob Requests (%d)' % sum(1 for op, _ in sent if op == 0x0C))
    log('RESULT MTU 23: 100-byte write and reliable write as Prepare/Execute Write, read back identical')


main(test)
