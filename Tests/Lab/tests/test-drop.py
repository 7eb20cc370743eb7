#!/usr/bin/python3
"""'Lab Dropper': the peripheral drops the link on command; the central sees Connected go false."""
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *


def test():
    c, fx = Central(), Fixtures()
    reasons = []
    c.bus.add_signal_receiver(lambda name, msg: reasons.append((str(name), str(msg))), 'Disconnected', DEV_I, BLUEZ)
    c.scan()
    dev = c.find_name(DROPPER)
    c.connect(dev)
    ch = c.chars(dev)
    check(c.read(ch[DROP_INFO]) == b'dropper', 'read the dropper characteristic')
    check(int(fx.Drop()) == 1, 'fixture dropped one link')
    check(pump(15, lambda: c.devices.get(dev, {}).get('Connected') is not None
               and not bool(c.devices[dev]['Connected'])), 'Connected went false (PropertiesChanged)')
    check(not bool(c.prop(dev, DEV_I, 'Connected')), 'Device1.Connected reads false')
    pump(1)
    log('Disconnected signal(s):', reasons or 'none (older BlueZ)')
    # and it can be reconnected afterwards
    c.connect(dev)
    check(c.read(ch[DROP_INFO]) == b'dropper', 'reconnected and read again')
    c.disconnect(dev)


main(test)
