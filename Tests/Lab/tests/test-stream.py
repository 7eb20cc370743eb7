#!/usr/bin/python3
"""'Lab Stream': payloads arrive as 20-byte notifications followed by b"EOM" and reassemble exactly."""
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *


def receive(c, path, timeout=60):
    ok = pump(timeout, lambda: b'EOM' in c.values[path])
    vals = c.values[path]
    check(ok, 'EOM arrived (%d notifications so far)' % len(vals))
    body = vals[:vals.index(b'EOM')]
    check(all(len(v) <= 20 for v in body), 'every chunk is at most 20 bytes')
    c.values[path] = []
    return b''.join(body)


def test():
    c, fx = Central(), Fixtures()
    c.scan()
    dev = c.find_name(STREAM)
    c.connect(dev)
    ch = c.chars(dev)
    check(STREAM_DATA in ch and STREAM_CTRL in ch, 'stream service characteristics resolved')
    data = ch[STREAM_DATA]
    c.start_notify(data)
    payload = bytes((i * 7 + 3) & 0xFF for i in range(997)) + b'end'          # 1000 bytes, last chunk full
    check(bool(fx.Stream(dbus.Array(payload, signature='y'))), 'stream started')
    got = receive(c, data)
    check(got == payload, 'payload of %d bytes reassembled (got %d bytes)' % (len(payload), len(got)))
    # second round, odd length, triggered by the central writing the control characteristic
    payload = os.urandom(333)
    fx.Stream(dbus.Array(payload, signature='y'))
    got = receive(c, data)
    check(got == payload, 'second payload of %d bytes reassembled' % len(payload))
    c.write(ch[STREAM_CTRL], b'\x01')
    got = receive(c, data)
    check(got == payload, 'resend triggered by a write to the control characteristic')
    c.disconnect(dev)


main(test)
