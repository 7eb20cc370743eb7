#!/usr/bin/python3
"""Descriptors and write types on the real bluetoothd: `bleexplr serve` on hci7 serves a note with
the reliable-write and writable-auxiliaries extended properties and a writable 0x2901 user
description (bluetoothd gives a remote descriptor no write flags: writable-auxiliaries is what says so); bleexplr as the central
on hci0 reads the descriptor (`read --descriptor`), writes it and reads it back (`write
--descriptor`), makes a reliable write (`write --type reliable`, Prepare/Execute Write through
bluetoothd), has `--type command` refused (the note does not take it), and checks what `services
--json` says of handles and writable descriptors. At the lab's MTU (517 between two bluetoothds)
a 300-byte value goes in one Write Request: it must say it is not long, and is checked whole on
the server (bluetoothd 5.66 refused a 512-byte one with InvalidArguments "Invalid Length")."""
import importlib.util, json, os, sys, tempfile
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *

# The serve test's server harness (its JSON lines checked against docs/output.schema.json).
_spec = importlib.util.spec_from_file_location('serve_test', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'test-serve.py'))
serve_test = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(serve_test)

NOTE = '626c6578-0000-4000-8000-00000000f011'
LABEL = '00002901-0000-1000-8000-00805f9b34fb'
NAME = 'bx Desc'
SPEC = {
    'name': NAME,
    'advertise': {'serviceUUIDs': ['FFF1']},
    'services': [{'uuid': 'FFF1', 'characteristics': [
        {'uuid': NOTE, 'properties': ['read', 'write', 'reliable-write', 'writable-auxiliaries'], 'value': {'text': 'first'},
         'descriptors': [{'uuid': '2901', 'properties': ['read', 'write'], 'value': {'text': 'Note'}}]},
    ]}],
}


def test():
    check(os.access(serve_test.BIN, os.X_OK), 'bleexplr binary at %s (build it first)' % serve_test.BIN)
    addr = serve_test.adapter_address('hci7')
    spec = os.path.join(tempfile.mkdtemp(prefix='bx-desc-'), 'spec.json')
    with open(spec, 'w') as f:
        json.dump(SPEC, f)
    srv = serve_test.Server(spec)
    try:
        srv.wait(lambda e: e.get('event') == 'advertising', 30, 'registers its application and advertisement')
        p = bx('scan', '--duration', '8', '--json')
        check(addr in {d['address'] for d in jsonl(p)}, 'the central hears the served device at %s' % addr)

        p = bx('services', addr, '--json')
        check(p.returncode == 0, 'services exits 0')
        svc = [s for s in jsonl(p) if s['uuid'] == u16('fff1')]
        check(len(svc) == 1, 'the served service is listed')
        mtu = svc[0].get('mtu')
        note = [c for c in svc[0]['characteristics'] if c['uuid'] == NOTE]
        check(len(note) == 1 and 'reliable-write' in note[0]['properties'], 'the note has reliable-write (%r)' % note)
        note = note[0]
        check(note.get('handle', '').startswith('0x') and note['handle'][2:].lower() == note['path'][-4:],
              'the characteristic handle comes from its path (%s, %s)' % (note.get('handle'), note['path']))
        labels = [d for d in note['descriptors'] if d['uuid'] == LABEL]
        check(len(labels) == 1 and labels[0].get('writable') is True, 'its 0x2901 is writable (%r)' % note['descriptors'])
        check(labels[0].get('hex') == b'Note'.hex(), 'and was read on connecting (%r)' % labels[0])

        p = bx('read', addr, NOTE, '--descriptor', '2901', '--json')
        v = jsonl(p)[0] if p.returncode == 0 else {}
        check(v.get('hex') == b'Note'.hex() and v.get('handle') == labels[0]['handle'], 'read --descriptor (%r)' % v)

        p = bx('write', addr, NOTE, '"Shelf"', '--descriptor', '2901', '--json')
        check(p.returncode == 0 and jsonl(p)[0].get('descriptor') == LABEL, 'write --descriptor exits 0 (%s)' % p.stderr)
        srv.wait(lambda e: e.get('event') == 'write' and e.get('hex') == b'Shelf'.hex(), 10, 'sees the descriptor write')
        p = bx('read', addr, NOTE, '--descriptor', '2901', '--json')
        check(p.returncode == 0 and jsonl(p)[0].get('hex') == b'Shelf'.hex(), 'the descriptor reads back as written')

        p = bx('write', addr, NOTE, '"kept safe"', '--type', 'reliable', '--json')
        w = jsonl(p)[0] if p.returncode == 0 else {}
        check(w.get('writeType') == 'reliable', 'a reliable write through bluetoothd exits 0 (%r, %s)' % (w, p.stderr))
        srv.wait(lambda e: e.get('event') == 'write' and e.get('hex') == b'kept safe'.hex(), 10, 'sees the reliable write')
        p = bx('read', addr, NOTE, '--json')
        check(p.returncode == 0 and jsonl(p)[0]['hex'] == b'kept safe'.hex(), 'the reliable write reads back')

        p = bx('write', addr, NOTE, '01', '--type', 'command')
        check(p.returncode == 1 and 'does not take a write of type command' in p.stderr,
              '--type command is refused for a note without write-without-response (%d, %s)' % (p.returncode, p.stderr))

        big = (bytes(range(256)) * 2)[:300]
        p = bx('write', addr, NOTE, big.hex(), '--json')
        w = jsonl(p)[0] if p.returncode == 0 else {}
        check(p.returncode == 0, 'a 300-byte write exits 0 (%s)' % p.stderr)
        check(isinstance(mtu, int), 'the link has an MTU (%r)' % mtu)
        check(w.get('long', False) == (300 > mtu - 3), 'long is said exactly when 300 > MTU - 3 (MTU %d, %r)' % (mtu, w.get('long')))
        srv.wait(lambda e: e.get('event') == 'write' and e.get('hex') == big.hex(), 15, 'holds all 300 bytes')
        p = bx('read', addr, NOTE, '--json')
        check(p.returncode == 0 and jsonl(p)[0]['hex'] == big.hex(), 'the 300 bytes read back whole')
        log('RESULT MTU %d: descriptor read and write, reliable write, 300-byte write (long: %s)' % (mtu, w.get('long', False)))
    finally:
        rc = srv.stop()
    check(rc == 0, 'serve exits 0 on SIGINT (got %s)' % rc)
    check(not srv.invalid, 'every line serve printed is a serve line of docs/output.schema.json (%s)' % srv.invalid[:3])


if __name__ == '__main__':
    main(test)
