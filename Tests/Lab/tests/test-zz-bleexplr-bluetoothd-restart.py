#!/usr/bin/python3
"""bleexplr survives bluetoothd going away and coming back: the TUI says "bluetoothd is
not running" (adapter absent), then, when bluetoothd is back, it reloads BlueZ's objects
and scans again on hci0.

Named test-zz-... so that it runs late: the fixtures register again when bluetoothd is back,
but BlueZ's example server on hci1 does not."""
import os, subprocess, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *

BIN = bleexplr_bin()

def test():
    cmd = "'%s' --bus '%s' --adapter hci0; echo EXIT=$?; sleep 30" % (BIN, bus_address())
    app = TmuxApp(cmd, 110, 32)
    try:
        app.wait_screen('hci0 scanning', lambda s: 'hci0 on · scanning' in s)
        app.wait_screen('devices', lambda s: ITAG in s)
        kill_bluetoothd()
        app.wait_screen('bluetoothd is not running', lambda s: 'bluetoothd is not running' in s and 'no adapter' in s)
        start_bluetoothd()
        app.wait_screen('hci0 back, scanning again', lambda s: 'hci0 on · scanning' in s, timeout=45)
        app.keys('q')
        s = app.wait_screen('exit', lambda s: 'EXIT=' in s)
        check('EXIT=0' in s, 'q exits 0')
    finally:
        app.kill()


main(test)
