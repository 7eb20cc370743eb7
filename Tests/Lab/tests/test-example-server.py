#!/usr/bin/python3
"""BlueZ's example GATT server on hci1: scan, connect, read Battery, Heart Rate notifications, write/read back."""
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *


def test():
    c = Central()
    c.scan()
    dev = c.find(lambda d: u16('180d') in [str(u) for u in d.get('UUIDs', [])], what='example server (UUID 180d)')
    c.connect(dev)
    ch = c.chars(dev)
    check(u16('2a19') in ch and u16('2a37') in ch, 'Battery Level and Heart Rate Measurement resolved')
    batt = c.read(ch[u16('2a19')])
    check(len(batt) == 1 and batt[0] <= 100, 'Battery Level read: %d%%' % batt[0])
    c.start_notify(ch[u16('2a37')])
    got = pump(10, lambda: len(c.values[ch[u16('2a37')]]) >= 3)
    vals = c.values[ch[u16('2a37')]]
    check(got, '>= 3 Heart Rate notifications (%d: %s)' % (len(vals), [v.hex() for v in vals[:5]]))
    check(all(len(v) >= 2 for v in vals), 'Heart Rate Measurement values have flags + bpm')
    test_chr = '12345678-1234-5678-1234-56789abcdef1'
    c.write(ch[test_chr], b'lab')
    check(c.read(ch[test_chr]) == b'lab', 'test characteristic write/read back')
    c.disconnect(dev)
    check(pump(10, lambda: not c.prop(dev, DEV_I, 'Connected')), 'disconnected')


main(test)
