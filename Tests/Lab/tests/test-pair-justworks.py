#!/usr/bin/python3
"""Just Works with a peer that has its own security manager ("Lab Lock JW", a Bumble host, NoInputNoOutput):
the real bleexplr binary, headless, on the lab's bluetoothd.
  1. `read` of a characteristic that needs encryption, unpaired: the peer answers Insufficient Encryption and
     bluetoothd raises the link's security by itself, asking our agent "may it pair?" (a Just Works pairing
     nobody asked for). Without --confirm and without a terminal the request is rejected and the read ends at
     once saying to give --confirm (bluetoothd 5.66 would leave the ReadValue unanswered for good, and 5.82
     answers the next read of it InProgress until the device is removed);
  2. with --confirm yes the read pairs (Just Works) and prints the value;
  3. the bond survives a reconnection: a second read in a new process, no second pairing;
  4. forget (Adapter1.RemoveDevice, what the app's X does), then `pair`, which asks nothing (bluetoothd
     accepts Just Works by itself for a pairing its client asked for), pairs again."""
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *


def test():
    peer = Peer('Lab Lock JW')
    before = peer.state()['pairings']
    p = bx('read', peer.address, ENC_CHAR, '--json', timeout=120)
    check(p.returncode == 1, 'a read without --confirm and without a terminal exits 1 (status %d)' % p.returncode)
    check('read failed: bluetoothd asked to pair for it, and the request was rejected: Lab Lock JW asks for authorization'
          in p.stderr and 'give --confirm yes|no' in p.stderr, 'saying why and what to give')
    check(peer.state()['pairings'] == before, 'the peer did not pair')
    check(pump(15, lambda: not peer.central_prop('Connected')), 'the link went down')
    # bluetoothd 5.82 keeps that ReadValue pending after the refused pairing: the next read of the
    # characteristic, from any client, answered InProgress (seen on trixie). Removing the device clears it.
    peer.forget()
    pump(1.5)

    p = bx('read', peer.address, ENC_CHAR, '--confirm', 'yes', '--json', timeout=120)
    check(p.returncode == 0, 'read of the encrypted characteristic with --confirm yes exits 0 (status %d)' % p.returncode)
    check(jsonl(p)[0]['hex'] == b'encrypted'.hex(), 'and prints its value (%r)' % jsonl(p)[0].get('hex'))
    check(peer.state()['pairings'] == before + 1, 'the peer paired once (pairings %d -> %d)' % (before, peer.state()['pairings']))
    check(bool(peer.central_prop('Paired')), 'hci0 has the device paired')

    p = bx('read', peer.address, ENC_CHAR, '--json', timeout=120)
    check(p.returncode == 0 and jsonl(p)[0]['hex'] == b'encrypted'.hex(), 'a second read (new connection) gets the value')
    check('pairing' not in p.stderr, 'without pairing again (stderr: %r)' % p.stderr.strip())
    check(peer.state()['pairings'] == before + 1, 'the peer saw no second pairing')

    peer.forget()
    p = bx('pair', peer.address, timeout=120)
    check(p.returncode == 0 and 'paired with %s' % peer.address in p.stderr, 'after forget, pair exits 0 (%r)' % p.stderr.strip())
    check(peer.state()['pairings'] == before + 2, 'the peer paired a second time')


main(test)
