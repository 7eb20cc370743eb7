#!/usr/bin/python3
"""The real bleexplr TUI in tmux over the lab's bluetoothd: it scans, connects to 'Lab
Dropper', the device screen opens by itself, and when the peripheral drops the link the
device screen stays, marked with the reason (Enter reconnects); Esc goes back to the scan
list; q restores the terminal."""
import os, subprocess, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *

BIN = bleexplr_bin()
def test():
    check(os.access(BIN, os.X_OK), 'bleexplr binary at %s' % BIN)
    fx = Fixtures()
    app = TmuxApp.bleexplr()
    try:
        app.enter_on(DROPPER, hide=ITAG)
        s = app.wait_screen('the device screen, opened by itself', lambda s: 'Scan › ' + DROPPER in s, timeout=45)
        s = app.wait_screen('its services', lambda s: DROP_INFO.upper()[:12] in s or '6C616273' in s, timeout=15)
        check('● connected' in s, 'connected state shown')
        # the MTU on the device screen is bluetoothd's (GattCharacteristic1.MTU of the live link)
        bus = connect_bus()
        objs = dbus.Interface(bus.get_object(BLUEZ, '/'), OM).GetManagedObjects()
        dev = next(str(p) for p, i in objs.items() if str(p).startswith('/org/bluez/hci0/dev_')
                   and str(i.get(DEV_I, {}).get('Name', '')) == DROPPER)
        mtus = {int(i[CHRC_I]['MTU']) for p, i in objs.items()
                if str(p).startswith(dev + '/') and CHRC_I in i and 'MTU' in i[CHRC_I]}
        check(len(mtus) == 1, "bluetoothd reports one MTU for the dropper's characteristics (%s)" % mtus)
        check('MTU %d' % next(iter(mtus)) in s, 'the device screen shows MTU %d' % next(iter(mtus)))
        check(fx.Drop() >= 1, 'the peripheral drops the link')
        s = app.wait_screen('the device screen kept, with the reason',
                        lambda s: 'Scan › ' + DROPPER in s and DROPPER + ' disconnected' in s and 'Enter reconnects' in s,
                        timeout=30)
        # the peripheral ended it: "remote" from Device1.Disconnected on BlueZ >= 5.83, from "we did not ask" before
        check(DROPPER + ' disconnected: remote device ended the connection' in s, 'the reason: the remote device ended it')
        check('● disconnected (remote device ended the connection) — Enter reconnects' in s, 'the screen is marked disconnected')
        app.keys('Escape')
        app.wait_screen('back on the scan list', lambda s: 'Scan › ' not in s and DROPPER in s)
        app.quit()
        check(app.tmux('display-message', '-p', '-t', 'bx', '#{alternate_on}').strip() == '0', 'terminal back from the alternate screen')
    finally:
        app.kill()


main(test)
