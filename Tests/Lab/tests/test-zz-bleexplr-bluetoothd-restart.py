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


def test():
    app = TmuxApp.bleexplr()
    try:
        app.wait_screen('hci0 scanning', lambda s: 'hci0 on · scanning' in s)
        app.wait_screen('devices', lambda s: ITAG in s)
        kill_bluetoothd()
        app.wait_screen('bluetoothd is not running', lambda s: 'bluetoothd is not running' in s and 'no adapter' in s)
        start_bluetoothd()
        app.wait_screen('hci0 back, scanning again', lambda s: 'hci0 on · scanning' in s, timeout=45)
        app.quit()
    finally:
        app.kill()


main(test)
