#!/usr/bin/python3
"""A bond survives bluetoothd restarting: `bleexplr pair` pairs "Lab Lock Passkey" (a Bumble host
with its own security manager, so it outlives bluetoothd) with its passkey; bluetoothd is killed
and started again with the flags it had; the new bluetoothd has the device paired (from
its storage), and `bleexplr read` of the characteristic that needs an authenticated link, without
--passkey, gets the value with no second pairing on either side.

Named test-zz-... so that it runs after the other tests: the fixtures' GATT apps and adverts
(registered with bluetoothd) die with it; the Bumble peers do not."""
import os, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *

def powered(bus):
    try:
        return bool(dbus.Interface(bus.get_object(BLUEZ, '/org/bluez/hci0'), PROPS).Get(ADAPTER_I, 'Powered'))
    except dbus.DBusException:
        return False


def test():
    peer = Peer('Lab Lock Passkey')
    before = peer.state()
    p = bx('pair', peer.address, '--passkey', PEER_PASSKEY, timeout=120)
    check(p.returncode == 0, 'pair with the right passkey exits 0 (status %d: %r)' % (p.returncode, p.stderr.strip()[-200:]))
    check(bool(peer.central_prop('Paired')) and bool(peer.central_prop('Bonded')), 'hci0 has it paired and bonded')
    check(peer.state()['pairings'] == before['pairings'] + 1, 'the peer paired once')
    if peer.central_prop('Connected'):   # Pair leaves the link up
        dbus.Interface(peer.bus.get_object(BLUEZ, peer.device_path()), DEV_I).Disconnect()
        check(pump(15, lambda: not peer.central_prop('Connected')), 'the pairing link dropped')

    started = time.monotonic()
    restart_bluetoothd()   # with the flags stage2 gave it
    check(pump(30, lambda: powered(peer.bus)), 'hci0 is back and powered')
    log('bluetoothd back in %.1f s' % (time.monotonic() - started))
    check(bool(peer.central_prop('Paired')), 'the new bluetoothd has the device paired (from its storage)')

    p = bx('read', peer.address, AUTH_CHAR, '--json', timeout=120)
    check(p.returncode == 0, 'read of the authenticated characteristic without --passkey exits 0 (status %d: %r)'
          % (p.returncode, p.stderr.strip()[-300:]))
    check(jsonl(p)[0]['hex'] == b'authenticated'.hex(), 'and prints its value')
    check('pairing' not in p.stderr, 'without pairing again (stderr: %r)' % p.stderr.strip())
    check(peer.state()['pairings'] == before['pairings'] + 1, 'the peer saw no second pairing')
    peer.forget()


main(test)
