#!/usr/bin/python3
"""Which advertisers a discovery sees, per BlueZ version, and that bleexplr's own scan sees them all.

None of the lab's fixture peripherals advertises as discoverable (their adapters are not discoverable)
and the beacons cannot (bluetoothd refuses flags on broadcast adverts). Since BlueZ 5.67 a discovery
filter of Transport alone counts as regular discovery, which reports only General/Limited Discoverable
LE advertisers: such a central sees no beacon (5.87 none of the connectable fixtures either; 5.82
still reported those here). On 5.66 every filter was a filtered discovery that
reports them all. bleexplr sets DuplicateData and an RSSI floor (-127 unless --rssi-floor says otherwise):
either keeps its discovery filtered on every version: `scan` must find the three connectable fixtures and both beacons anyway."""
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *

PERIPHERALS = (ITAG, STREAM, DROPPER)


def is_ibeacon(d):
    md = d.get('ManufacturerData') or {}
    return any(int(k) == 0x004C and bytes_of(v) == IBEACON_MD for k, v in md.items())


def is_eddystone(d):
    sd = d.get('ServiceData') or {}
    return any(str(k) == FEAA and bytes_of(v) == EDDYSTONE_SD for k, v in sd.items())


def test():
    regular = bluez_at_least('5.67')
    c = Central()
    c.forget_all()
    # bluetoothd merges every client's filter into one discovery: another one running (a client that left
    # with its discovery still on) would make this one filtered too
    check(pump(10, lambda: not c.prop(c.apath, ADAPTER_I, 'Discovering')), 'no other discovery runs on hci0')
    c.scan(transport_only=True)
    pump(8)
    c.stop_scan()
    names = sorted(str(d.get('Name')) for d in c.devices.values() if d.get('Name'))
    beacons = [n for n, f in (('iBeacon', is_ibeacon), ('Eddystone', is_eddystone)) if any(f(d) for d in c.devices.values())]
    log('Transport-only discovery saw: names %s, beacons %s' % (names, beacons))
    if regular:
        # The beacons (no flags at all) are always dropped. The connectable fixtures (flags without a
        # discoverable bit) were dropped by 5.87 in every run, but 5.82 reported them in every run: said
        # in the log and in docs/testing.md, not asserted.
        check(not beacons, 'BlueZ >= 5.67: a Transport-only filter is regular discovery and drops the beacons')
        log('RESULT BlueZ %s: Transport-only discovery reported the non-discoverable connectable fixtures: %s'
            % ('.'.join(map(str, bluez_version())), [n for n in PERIPHERALS if n in names] or 'none'))
    else:
        check(all(n in names for n in PERIPHERALS) and len(beacons) == 2,
              'BlueZ < 5.67: a Transport-only filter is a filtered discovery and sees every fixture and both beacons')
    c.forget_all()

    p = bx('scan', '--duration', '8', '--json')
    check(p.returncode == 0, 'bleexplr scan exits 0')
    seen = jsonl(p)
    got = {d.get('name') for d in seen}
    for n in PERIPHERALS:
        check(n in got, 'bleexplr scan finds the non-discoverable %r' % n)
    check(any((d.get('beacon') or {}).get('kind') == 'ibeacon' for d in seen), 'and the iBeacon (broadcast, no flags)')
    check(any((d.get('beacon') or {}).get('url') == 'https://example.com/lab' for d in seen), 'and the Eddystone-URL')

    # --rssi-floor off: no RSSI condition, only Transport + DuplicateData; still a filtered discovery
    p = bx('--rssi-floor', 'off', 'scan', '--duration', '8', '--json')
    seen = jsonl(p)
    got = {d.get('name') for d in seen}
    check(p.returncode == 0 and all(n in got for n in PERIPHERALS), 'without an RSSI floor (--rssi-floor off) too')
    check(any((d.get('beacon') or {}).get('kind') == 'ibeacon' for d in seen), 'the iBeacon as well')

main(test)
