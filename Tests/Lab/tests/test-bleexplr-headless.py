#!/usr/bin/python3
"""The real bleexplr binary's headless commands against the lab's bluetoothd: scan finds
the fixtures with RSSI, UUIDs and decoded beacons; services, read, write (read back),
notify (iTag presses, Heart Rate Measurement, and both at once) through the BlueZ backend."""
import json, os, subprocess, sys, threading, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *

BIN = bleexplr_bin()
TEST_SVC_CHAR = '12345678-1234-5678-1234-56789abcdef1'   # BlueZ example server: read/write


def test():
    check(os.access(BIN, os.X_OK), 'bleexplr binary at %s (build it first)' % BIN)
    p = bx('scan', '--duration', '8', '--json')
    check(p.returncode == 0, 'scan exits 0')
    seen = jsonl(p)
    by_name = {d.get('name'): d for d in seen if d.get('name')}
    check(ITAG in by_name, 'scan finds %r' % ITAG)
    itag = by_name[ITAG]
    check(isinstance(itag.get('rssi'), int) and -127 < itag['rssi'] < 20, 'with an RSSI (%s)' % itag.get('rssi'))
    check(u16('ffe0') in itag.get('serviceUUIDs', []), 'and its advertised service FFE0')
    hrm = next((d for d in seen if u16('180d') in d.get('serviceUUIDs', [])), None)
    check(hrm is not None, "scan finds BlueZ's example server (advertises 180D)")
    check(any((d.get('beacon') or {}).get('kind') == 'ibeacon' and d['beacon'].get('uuid') == 'e2c56db5-dffb-48d2-b060-d0f5a71096e0'
              and (d['beacon'].get('major'), d['beacon'].get('minor')) == (1, 2) for d in seen),
          'the iBeacon is decoded (the whole uuid, major/minor)')
    check(any((d.get('beacon') or {}).get('url') == 'https://example.com/lab' for d in seen), 'the Eddystone-URL is expanded')

    p = bx('services', itag['address'], '--json')
    check(p.returncode == 0, 'services exits 0')
    chars = [c['uuid'] for s in jsonl(p) for c in s['characteristics']]
    for u in ('ffe1', '2a06', '2a19'):
        check(u16(u) in chars, 'iTag GATT tree has %s' % u.upper())

    p = bx('read', itag['address'], '2A19', '--json')
    check(p.returncode == 0 and jsonl(p)[0]['decoded'] == '100 %', 'read Battery Level = 100 %')

    fx = Fixtures()
    p = bx('write', itag['address'], '2A06', '02', '--without-response')
    check(p.returncode == 0, 'write Immediate Alert without response exits 0')
    check(pump(10, lambda: int(fx.State()['itag']['alert_level']) == 2), 'the write reached the tag')

    def pressed_twice(*args, what):
        """`bleexplr notify ARGS --count 2 --json` with two presses of the iTag once it subscribed."""
        out = {}
        link_down()
        pump(0.5)
        th = threading.Thread(target=lambda: out.setdefault('p', bx('notify', *args, '--count', '2', '--json', timeout=120)))
        th.start()
        check(pump(60, lambda: bool(fx.State()['itag']['key_notifying'])), what + ' subscribed to FFE1')
        for _ in range(2):
            fx.Press()
            time.sleep(0.5)
        th.join(90)
        p = out.get('p')
        check(p is not None and p.returncode == 0, what + ' exits 0 after two presses')
        return p

    # Notifications: presses while `notify --count 2` is subscribed.
    p = pressed_twice(itag['address'], 'FFE1', what='notify --count 2')
    check([v['hex'] for v in jsonl(p)] == ['01', '01'], 'two presses arrive as 01 01')

    p = bx('notify', hrm['address'], '2A37', '--count', '2', '--json', timeout=90)
    check(p.returncode == 0, 'Heart Rate Measurement notify exits 0')
    check(all(' bpm' in (v.get('decoded') or '') for v in jsonl(p)), 'and its values decode to bpm')

    # Two links at once, headless: one notify for the iTag's button and the heart rate, `--count`
    # per device, every JSON line saying whose it is.
    p = pressed_twice(itag['address'], 'FFE1', hrm['address'], '2A37', what='notify of two devices')
    lines = jsonl(p)
    by = {a: [v for v in lines if v.get('address') == a] for a in (itag['address'], hrm['address'])}
    check([v['hex'] for v in by[itag['address']]] == ['01', '01'], "the iTag's two presses, with its address (%s)" % lines)
    check(len(by[hrm['address']]) == 2 and all(' bpm' in (v.get('decoded') or '') for v in by[hrm['address']]),
          "two heart rates, with the example server's address")
    check(len(lines) == 4, 'nothing else (%d lines)' % len(lines))

    p = bx('write', hrm['address'], TEST_SVC_CHAR, '0102ff')
    check(p.returncode == 0, 'write to the test characteristic exits 0')
    p = bx('read', hrm['address'], TEST_SVC_CHAR, '--json')
    check(p.returncode == 0 and jsonl(p)[0]['hex'] == '0102ff', 'the written value reads back')

    p = bx('read', itag['address'], '2A37')
    check(p.returncode == 1 and p.stderr.strip().endswith('has no characteristic 2A37'),
          'a missing characteristic is one clear line (%r)' % p.stderr.strip())


main(test)
