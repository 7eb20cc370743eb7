#!/usr/bin/python3
"""iBeacon + Eddystone-URL (non-connectable, random addresses): seen with their data; switched off, they go quiet.

Beacons have no name: they are recognised by their data. A beacon counts as "still advertising" while
advertising reports carrying its data keep arriving (DuplicateData=true makes bluetoothd signal each one).
"""
import os, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *

QUIET = float(os.environ.get('LAB_BEACON_QUIET', '6'))   # seconds without reports that count as "gone"


def is_ibeacon(d):
    md = d.get('ManufacturerData', {})
    return 0x004C in [int(k) for k in md] and bytes_of(md[dbus.UInt16(0x004C)]) == IBEACON_MD


def is_eddystone(d):
    sd = {str(k): bytes_of(v) for k, v in d.get('ServiceData', {}).items()}
    return sd.get(FEAA) == EDDYSTONE_SD


def last_report(c, pred):
    ts = [t for p, d in c.devices.items() if pred(d) for t in c.adv_events.get(p, [])]
    return max(ts) if ts else 0.0


def seen_after(c, pred, t0, timeout, what):
    ok = pump(timeout, lambda: last_report(c, pred) > t0)
    check(ok, '%s advertising (report within %.0fs)' % (what, timeout))


def gone(c, fx, name, pred, other_pred, what):
    fx.SetAdvertising(name, False)
    fx.settle()
    t_off = time.monotonic() + 1.5            # reports already in flight may still land
    pump(1.5 + QUIET)
    last = last_report(c, pred)
    check(last < t_off, '%s: no report for %.0fs after switching it off (last %.1fs after off)'
          % (what, QUIET, last - t_off + 1.5 if last else -1))
    check(last_report(c, other_pred) > t_off, 'the other beacon kept advertising meanwhile (scan still alive)')


def test():
    c, fx = Central(), Fixtures()
    c.scan()   # a discovery filter is needed: bluetoothd ignores flag-less advertisers in unfiltered discovery
    seen_after(c, is_ibeacon, 0, 20, 'iBeacon')
    p = next(p for p, d in c.devices.items() if is_ibeacon(d))
    check(c.devices[p].get('AddressType') == 'random', 'iBeacon uses a random address')
    log('iBeacon', p, bytes_of(c.devices[p]['ManufacturerData'][dbus.UInt16(0x004C)]).hex())
    seen_after(c, is_eddystone, 0, 20, 'Eddystone-URL')
    p = next(p for p, d in c.devices.items() if is_eddystone(d))
    check(FEAA in [str(u) for u in c.devices[p].get('UUIDs', [])], 'Eddystone lists service FEAA')

    gone(c, fx, 'ibeacon', is_ibeacon, is_eddystone, 'iBeacon')
    t = time.monotonic(); fx.SetAdvertising('ibeacon', True)
    seen_after(c, is_ibeacon, t, 15, 'iBeacon back on')

    gone(c, fx, 'eddystone', is_eddystone, is_ibeacon, 'Eddystone')
    t = time.monotonic(); fx.SetAdvertising('eddystone', True)
    seen_after(c, is_eddystone, t, 15, 'Eddystone back on')


main(test)
