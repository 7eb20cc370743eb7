#!/usr/bin/python3
"""Numeric comparison (LE Secure Connections) with a peer that has its own security manager ("Lab Lock Compare",
a Bumble host, DisplayYesNo, says yes): the real bleexplr binary, headless, answers RequestConfirmation from
--confirm.
  1. --confirm no: `pair` fails, nothing is paired;
  2. --confirm yes: `pair` exits 0, the peer compared a number;
  3. the bond survives a reconnection: a read of the authenticated characteristic without answers, no pairing;
  4. forget (Adapter1.RemoveDevice, what the app's X does), then `pair --confirm yes` pairs again."""
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *


def test():
    peer = Peer('Lab Lock Compare')
    before = peer.state()
    p = bx('pair', peer.address, '--confirm', 'no', timeout=120)
    check(p.returncode == 1, 'pair --confirm no exits 1 (status %d)' % p.returncode)
    check('pairing with %s failed: Authentication' % peer.address in p.stderr,
          'saying why (%r)' % p.stderr.strip().splitlines()[-1:])
    check(not peer.central_prop('Paired'), 'hci0 has not paired it')
    check(peer.state()['pairings'] == before['pairings'], 'the peer did not pair')

    p = bx('pair', peer.address, '--confirm', 'yes', timeout=120)
    check(p.returncode == 0 and 'paired with %s' % peer.address in p.stderr, 'pair --confirm yes exits 0 (%r)' % p.stderr.strip())
    check(peer.state()['pairings'] == before['pairings'] + 1, 'the peer paired')
    check(len(peer.state()['compared']) > len(before['compared']), 'after comparing %s' % peer.state()['compared'][-1:])

    p = bx('read', peer.address, AUTH_CHAR, '--json', timeout=120)
    check(p.returncode == 0 and jsonl(p)[0]['hex'] == b'authenticated'.hex(), 'the authenticated characteristic reads (new connection)')
    check('pairing' not in p.stderr, 'without pairing again (stderr: %r)' % p.stderr.strip())
    check(peer.state()['pairings'] == before['pairings'] + 1, 'the peer saw no second pairing')

    peer.forget()
    p = bx('pair', peer.address, '--confirm', 'yes', timeout=120)
    check(p.returncode == 0, 'after forget, pair --confirm yes exits 0 (%r)' % p.stderr.strip())
    check(peer.state()['pairings'] == before['pairings'] + 2, 'the peer paired a second time')


main(test)
