#!/usr/bin/python3
"""Service Changed on a real bluetoothd: the app connected to 'Lab Dropper' (its device screen
open), the peripheral's database gains a Secure DFU service (a second GATT application registered
on its adapter: bluetoothd there indicates Service Changed, the central's bluetoothd rediscovers and
exports the new objects). The app's tree refreshes by itself; the DFU characteristic's screen is
opened; the service goes again: the app says the characteristic is gone and shows the device
screen, without the service. The link stays up throughout."""
import os, subprocess, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *

BIN = bleexplr_bin()
LAB = os.environ['BLEEXPLR_LAB_SH']
DFU_CHAR = '8ec90003-f315-4f60-9fb8-838830daea50'


def dfu(on):
    p = subprocess.run([LAB, 'fixture', 'dfu', 'on' if on else 'off'], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0 and 'changed' in p.stdout and 'unchanged' not in p.stdout,
          'the dropper %s its DFU service (%r %r)' % ('gains' if on else 'loses', p.stdout.strip(), p.stderr.strip()[-200:]))


def tree(s):
    """The screen without its last lines (the message line and the status bar)."""
    return '\n'.join(s.split('\n')[:-3]).upper()


def test():
    check(os.access(BIN, os.X_OK), 'bleexplr binary at %s' % BIN)
    app = TmuxApp.bleexplr()
    try:
        app.enter_on(DROPPER, hide=ITAG)
        s = app.wait_screen('the device screen', lambda s: 'Scan › ' + DROPPER in s and '● connected' in s, timeout=45)
        check('FE59' not in s and '8EC90003' not in s, 'no DFU service yet')
        bus = connect_bus()
        objs = dbus.Interface(bus.get_object(BLUEZ, '/'), OM).GetManagedObjects()
        dev = next(str(p) for p, i in objs.items() if str(p).startswith('/org/bluez/hci0/dev_')
                   and str(i.get(DEV_I, {}).get('Name', '')) == DROPPER)

        started = time.monotonic()
        dfu(True)
        s = app.wait_screen('the tree refreshed with the DFU service',
                            lambda s: 'The services of ' + DROPPER + ' changed' in s and '8EC90003' in tree(s), timeout=30)
        log('the new service on screen %.1f s after it was registered' % (time.monotonic() - started))
        log('screen:\n' + s)
        check('Scan › ' + DROPPER in s and '● connected' in s, 'the same device screen, still connected')
        for _ in range(tree_row(dev, DFU_CHAR, bus)):
            app.keys('j')
        app.keys('Enter')
        app.wait_screen("the DFU characteristic's screen", lambda s: '8EC90003' in s.split('\n')[1].upper(), timeout=10)

        started = time.monotonic()
        dfu(False)
        s = app.wait_screen('the characteristic said gone', lambda s: 'is gone' in s, timeout=30)
        log('the removal on screen %.1f s after it was unregistered' % (time.monotonic() - started))
        log('screen:\n' + s)
        check('Scan › ' + DROPPER in s and '8EC90003' not in s.split('\n')[1].upper(), 'back on the device screen')
        check('8EC90003' not in tree(s) and 'FE59' not in tree(s), 'the DFU service is gone from the tree')
        check('● connected' in s, 'the link stayed up')
        app.quit()
    finally:
        app.kill()


main(test)
