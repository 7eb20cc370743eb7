#!/usr/bin/python3
"""'Lab iTag': FFE0/FFE1 press notifications, Immediate Alert write, Battery read."""
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *


def test():
    c, fx = Central(), Fixtures()
    c.scan()
    dev = c.find_name(ITAG)
    uuids = [str(u) for u in c.devices[dev].get('UUIDs', [])]
    check(u16('ffe0') in uuids, 'advertises service FFE0 (%s)' % uuids)
    c.connect(dev)
    ch = c.chars(dev)
    for u in ('ffe1', '2a06', '2a19'):
        check(u16(u) in ch, 'characteristic %s resolved' % u.upper())
    check(c.read(ch[u16('2a19')]) == b'\x64', 'Battery Level = 100%')
    key = ch[u16('ffe1')]
    c.start_notify(key)
    check(bool(fx.State()['itag']['key_notifying']), 'fixture sees the FFE1 subscription')
    for n in (1, 2, 3):
        check(bool(fx.Press()), 'press %d sent as a notification' % n)
        check(pump(10, lambda: len(c.values[key]) >= n), 'press %d arrived at the central' % n)
    check(c.values[key] == [b'\x01'] * 3, 'each press notifies 01 (%s)' % [v.hex() for v in c.values[key]])
    c.write(ch[u16('2a06')], b'\x02', kind='command')     # Immediate Alert: high alert, write without response
    check(pump(10, lambda: int(fx.State()['itag']['alert_level']) == 2), 'Immediate Alert write (no response) = 02 reached the tag')
    c.write(ch[u16('2a06')], b'\x00', kind='request')
    check(pump(10, lambda: int(fx.State()['itag']['alert_level']) == 0), 'Immediate Alert write (request) = 00 reached the tag')
    check(c.prop(dev, DEV_I, 'Name') == ITAG, 'GAP name after connecting is still %r' % ITAG)
    c.disconnect(dev)


main(test)
