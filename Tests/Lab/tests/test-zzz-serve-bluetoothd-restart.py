#!/usr/bin/python3
"""`bleexplr serve` survives bluetoothd restarting: its registrations die with bluetoothd; when
org.bluez has an owner again, serve registers again by itself, and a central can read the
served value. Named test-zzz-... to run after the other restart test (fixtures die with it)."""
import os, subprocess, sys, tempfile, json
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *
import importlib.util
_spec = importlib.util.spec_from_file_location('serve_common', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'test-serve.py'))
common = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(common)


def test():
    check(os.access(common.BIN, os.X_OK), 'bleexplr binary at %s (build it first)' % common.BIN)
    addr = common.adapter_address('hci7')
    spec = os.path.join(tempfile.mkdtemp(prefix='bx-serve-restart-'), 'spec.json')
    with open(spec, 'w') as f:
        json.dump(common.SPEC, f)
    srv = common.Server(spec)
    try:
        srv.wait(lambda e: e.get('event') == 'advertising', 30, 'registers')
        srv.seen = []
        kill_bluetoothd()
        srv.wait(lambda e: e.get('event') == 'bluez-gone', 20, 'notices bluetoothd going away')
        start_bluetoothd()
        srv.wait(lambda e: e.get('event') == 'bluez-back', 20, 'notices bluetoothd coming back')
        srv.wait(lambda e: e.get('event') == 'advertising', 45, 'registers again by itself')
        p = common.bx('read', addr, common.GREETING, '--json', timeout=90)
        check(p.returncode == 0 and common.jsonl(p)[0]['hex'] == b'hello'.hex(), 'a central reads the served value again')
    finally:
        rc = srv.stop()
    check(rc == 0, 'serve exits 0 on SIGINT')


if __name__ == '__main__':
    main(test)
