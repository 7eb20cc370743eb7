#!/usr/bin/python3
"""Passkey entry with a peer that has its own security manager ("Lab Lock Passkey", a Bumble host, DisplayOnly,
showing the fixed passkey 123456): the real bleexplr binary, headless, answers RequestPasskey from --passkey.
  1. a wrong passkey: `pair` fails with BlueZ's AuthenticationFailed, nothing is paired;
  2. `read` of a characteristic that needs an authenticated link, unpaired, with the right passkey: the read
     pairs (passkey entry) and prints the value;
  3. the bond survives a reconnection: a read without --passkey in a new process, no second pairing."""
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *


def test():
    peer = Peer('Lab Lock Passkey')
    before = peer.state()
    p = bx('pair', peer.address, '--passkey', '111111', timeout=120)
    check(p.returncode == 1, 'pair with a wrong passkey exits 1 (status %d)' % p.returncode)
    check('pairing with %s failed: AuthenticationFailed' % peer.address in p.stderr,
          'saying AuthenticationFailed (%r)' % p.stderr.strip().splitlines()[-1:])
    check(not peer.central_prop('Paired'), 'hci0 has not paired it')
    check(peer.state()['shown'][len(before['shown']):] != [], 'the peer displayed its passkey (%s)' % peer.state()['shown'][-1:])
    check(peer.state()['pairings'] == before['pairings'], 'the peer did not pair')

    p = bx('read', peer.address, AUTH_CHAR, '--passkey', PEER_PASSKEY, '--json', timeout=120)
    check(p.returncode == 0, 'read of the authenticated characteristic with --passkey %s exits 0 (status %d)' % (PEER_PASSKEY, p.returncode))
    check(jsonl(p)[0]['hex'] == b'authenticated'.hex(), 'and prints its value')
    check(peer.state()['pairings'] == before['pairings'] + 1, 'the peer paired once')
    check(bool(peer.central_prop('Paired')), 'hci0 has it paired')
    log('the read paired: %s' % ('bleexplr paired on demand' if 'for want of encryption: pairing' in p.stderr
                                 else 'bluetoothd raised the security itself'))

    p = bx('read', peer.address, AUTH_CHAR, '--json', timeout=120)
    check(p.returncode == 0 and jsonl(p)[0]['hex'] == b'authenticated'.hex(), 'a read without --passkey (new connection) gets the value')
    check('pairing' not in p.stderr, 'without pairing again (stderr: %r)' % p.stderr.strip())
    check(peer.state()['pairings'] == before['pairings'] + 1, 'the peer saw no second pairing')


main(test)
