#!/usr/bin/python3
"""Record once, develop against the clone: bleexplr records a session with `Lab iTag` (services,
a read of its battery level), then `serve --clone RECORDING ADDRESS` on hci7 serves what it
recorded: the same name and advertised service, the same GATT tree, the last values."""
import json, os, sys, tempfile
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *
import importlib.util
_spec = importlib.util.spec_from_file_location('serve_common', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'test-serve.py'))
common = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(common)

BLUEZ_OWN = {u16('1800'), u16('1801')}


def tree(p):
    return [(s['uuid'], [(c['uuid'], c['properties']) for c in s['characteristics']])
            for s in common.jsonl(p) if s['uuid'] not in BLUEZ_OWN]


def test():
    check(os.access(common.BIN, os.X_OK), 'bleexplr binary at %s (build it first)' % common.BIN)
    p = common.bx('scan', '--duration', '6', '--json')
    itag = next((d for d in common.jsonl(p) if d.get('name') == ITAG), None)
    check(itag is not None, 'scan finds %r' % ITAG)
    rec = os.path.join(tempfile.mkdtemp(prefix='bx-clone-'), 'itag.jsonl')
    p = common.bx('--record', rec, 'read', itag['address'], '2A19', '--json')
    check(p.returncode == 0, 'read Battery Level while recording')
    p = common.bx('services', itag['address'], '--json')
    original = tree(p)
    check(len(original) >= 3, 'the original has its services (%s)' % original)

    clone_addr = common.adapter_address('hci7')
    srv = common.Server('--clone', rec, itag['address'])
    try:
        srv.wait(lambda e: e.get('event') == 'advertising', 30, 'serves the clone')
        p = common.bx('scan', '--duration', '8', '--json')
        seen = {d['address']: d for d in common.jsonl(p)}
        check(clone_addr in seen, 'the clone advertises at %s' % clone_addr)
        check(seen[clone_addr].get('name') == ITAG, 'under the recorded name')
        check(u16('ffe0') in seen[clone_addr].get('serviceUUIDs', []), 'with the recorded service UUID')
        p = common.bx('services', clone_addr, '--json')
        check(p.returncode == 0, 'services on the clone exits 0')
        cloned = tree(p)
        check(cloned == original, 'the clone browses the same as the original:\n  %s\n  %s' % (original, cloned))
        p = common.bx('read', clone_addr, '2A19', '--json')
        check(p.returncode == 0 and common.jsonl(p)[0].get('decoded') == '100 %', 'the recorded battery level reads back')
    finally:
        rc = srv.stop()
    check(rc == 0, 'serve exits 0 on SIGINT')


if __name__ == '__main__':
    main(test)
