#!/usr/bin/python3
"""A peer that refuses to pair ("Lab Lock Reject", a Bumble host whose pairing delegate says no to every
Pairing Request: SMP Pairing Failed 0x05, Pairing Not Supported), with a characteristic that needs encryption:
  1. `pair` exits 1 with the error bluetoothd's Device1.Pair really gives, named exactly (AuthenticationFailed,
     not AuthenticationRejected);
  2. headless, a read of the characteristic that needs encryption fails (no value, exit 1) saying that the
     link went down while the read waited, bluetoothd's answer, and that `pair` says why;
  3. in the app, `e` on its row says on the message line that pairing failed, and why.
In each the peer refused (its count in peers.json grows) and hci0 never has it paired."""
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *

# What bluetoothd answers (5.66 and 5.82, seen here): the peer's SMP Pairing Failed (0x05, Pairing Not
# Supported) becomes the kernel's HCI Authentication Failure, which bluetoothd's Device1.Pair reports as
# AuthenticationFailed (its AuthenticationRejected is for a mgmt "rejected" or "busy" status), and the
# kernel ends the link. A read: bluetoothd raises the link's security for it by itself, the pairing is
# refused, the kernel ends the link, and then 5.66 answers the pending ReadValue with its own ATT error
# 0x0e while 5.82 leaves it unanswered.
PAIR_ERROR = 'AuthenticationFailed: Authentication Failed'
READ_ERROR = 'read failed: the link went down while the read waited for its answer'
BLUETOOTHD_SAID = {(5, 66): '(bluetoothd: Operation failed with ATT error: 0x0e)', (5, 82): '(bluetoothd did not answer it)'}


def test():
    peer = Peer('Lab Lock Reject')
    refused = peer.state()['refused']
    p = bx('pair', peer.address, '--confirm', 'yes', timeout=120)
    last = (p.stderr.strip().splitlines() or [''])[-1]
    log('PAIR: exit %d, %r' % (p.returncode, last))
    check(p.returncode == 1, 'pair exits 1 (status %d)' % p.returncode)
    check(peer.state()['refused'] > refused, 'the peer refused a pairing request (%d)' % peer.state()['refused'])
    check(not peer.central_prop('Paired'), 'hci0 has not paired it')
    check(PAIR_ERROR in last, 'pair says %s (%r)' % (PAIR_ERROR, last))
    check(pump(15, lambda: not peer.central_prop('Connected')), 'the link went down')
    peer.forget()

    refused = peer.state()['refused']
    p = bx('read', peer.address, ENC_CHAR, '--confirm', 'yes', '--json', timeout=120)
    last = (p.stderr.strip().splitlines() or [''])[-1]
    log('READ: exit %d, %r' % (p.returncode, last))
    check(p.returncode == 1 and p.stdout.strip() == '', 'the read exits 1 and prints no value (status %d)' % p.returncode)
    check(peer.state()['refused'] > refused, 'the peer refused the pairing the read led to (%d)' % peer.state()['refused'])
    check(not peer.central_prop('Paired'), 'hci0 has not paired it')
    check(last.startswith('bleexplr: ' + READ_ERROR), 'the read says %r (%r)' % (READ_ERROR, last))
    said = BLUETOOTHD_SAID.get(bluez_version())
    check(said is None or said in last, 'with what bluetoothd %s does: %s' % ('.'.join(map(str, bluez_version())), said))
    check('is not paired' in last and 'bleexplr pair %s says why' % peer.address in last, 'and what to try')
    check(pump(15, lambda: not peer.central_prop('Connected')), 'the link went down')
    peer.forget()

    refused = peer.state()['refused']
    app = TmuxApp.bleexplr(width=100, height=30)
    try:
        app.wait_screen('hci0 scanning', lambda s: 'hci0 on · scanning' in s)
        app.wait_screen('Lab Lock Reject in the scan list', lambda s: 'Lab Lock Reject' in s, timeout=45)
        app.only('Lab Lock Reject')
        app.keys('e')
        s = app.wait_screen('pairing failed on the message line',
                            lambda s: 'Pairing with Lab Lock Reject failed: %s' % PAIR_ERROR in s, timeout=90)
        log('message line: ' + next(l for l in s.split('\n') if 'Pairing with Lab Lock Reject failed' in l).strip())
        check(peer.state()['refused'] > refused, 'the peer refused it')
        check(not peer.central_prop('Paired'), 'hci0 has not paired it')
        app.quit()
    finally:
        app.kill()


main(test)
