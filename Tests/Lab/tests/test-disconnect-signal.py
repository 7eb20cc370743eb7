#!/usr/bin/python3
"""bluetoothd's own Device1.Disconnected(reason, message) (BlueZ >= 5.83; NOT RUN before), without
bleexplr: what test-disconnect-reason.py relies on. A python3-dbus central on hci0 connects to
'Lab iTag' three times: the peripheral drops the link, the controller loses it (`lab.sh linkloss`),
the central disconnects. Each must end with exactly one Disconnected signal on the device, with
org.bluez.Reason.Remote / Timeout / Local, before Connected turns false."""
import os, subprocess, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *


def test():
    require_bluez('5.83', 'Device1.Disconnected')
    c, fx = Central(), Fixtures()
    order = []   # ('signal', name, message) and ('connected', False) as they arrive for the iTag
    c.scan()
    dev = c.find_name(ITAG)
    c.stop_scan()
    c.bus.add_signal_receiver(lambda name, msg, path=None: str(path) == dev and order.append(('signal', str(name), str(msg))),
                              'Disconnected', DEV_I, BLUEZ, path_keyword='path')
    c.bus.add_signal_receiver(lambda i, ch, inv, path=None: str(path) == dev and i == DEV_I and 'Connected' in ch
                              and not ch['Connected'] and order.append(('connected', False)),
                              'PropertiesChanged', PROPS, BLUEZ, path_keyword='path')

    def linkloss():
        r = subprocess.run([os.environ.get('BLEEXPLR_LAB_SH', 'lab.sh'), 'linkloss', 'hci2'], capture_output=True, text=True, timeout=30)
        check(r.returncode == 0 and '1 link(s) ended' in r.stdout, "the iTag's controller lost its link (%s)" % r.stdout.strip())

    for want, provoke in (('org.bluez.Reason.Remote', lambda: check(int(fx.Disconnect('itag')) == 1, 'the iTag drops the link')),
                          ('org.bluez.Reason.Timeout', linkloss),
                          ('org.bluez.Reason.Local', lambda: c.disconnect(dev))):
        c.connect(dev)
        del order[:]
        provoke()
        check(pump(15, lambda: ('connected', False) in order), 'Connected turned false')
        pump(1.0)
        log('signals:', order)
        sig = [o for o in order if o[0] == 'signal']
        check(len(sig) == 1 and sig[0][1] == want, 'one Disconnected(%s) (%s)' % (want, sig))
        check(order.index(sig[0]) < order.index(('connected', False)), 'before Connected=false')
        pump(1.5)


main(test)
