#!/usr/bin/python3
"""The ATT MTU bleexplr shows comes from bluetoothd's GattCharacteristic1.MTU (BlueZ >= 5.62: on
5.66, 5.82 and newer). `services --json` carries it on every line; while a link to 'Lab iTag' is up,
bluetoothd's own MTU property on each of its characteristics must be that same number."""
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *


def test():
    check(os.access(bleexplr_bin(), os.X_OK), 'bleexplr binary at %s (build it first)' % bleexplr_bin())
    c = Central()
    c.scan()
    path = c.find_name(ITAG)
    c.stop_scan()
    addr = str(c.devices[path]['Address'])

    p = bx('services', addr, '--json')
    check(p.returncode == 0, 'services exits 0')
    lines = jsonl(p)
    mtus = {l.get('mtu') for l in lines}
    check(len(lines) >= 3 and len(mtus) == 1 and isinstance(next(iter(mtus)), int),
          'every services line carries one MTU (%s)' % sorted(map(str, mtus)))
    shown = next(iter(mtus))
    check(23 <= shown <= 517, 'a valid ATT MTU (%d)' % shown)

    pump(2.0, lambda: not c.prop(path, DEV_I, 'Connected'))   # services left the link
    c.connect(path)
    try:
        chars = c.chars(path)
        real = {u: int(c.prop(p_, CHRC_I, 'MTU')) for u, p_ in chars.items()}
        log("bluetoothd's GattCharacteristic1.MTU:", real)
        check(real and set(real.values()) == {shown}, 'bluetoothd reports MTU %d on every characteristic of the link' % shown)
    finally:
        c.disconnect(path)
    log('RESULT BlueZ %s: MTU %d' % ('.'.join(map(str, bluez_version())), shown))


main(test)
