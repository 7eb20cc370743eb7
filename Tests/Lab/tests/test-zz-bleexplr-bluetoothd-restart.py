#!/usr/bin/python3
"""bleexplr survives bluetoothd going away and coming back: the TUI says "bluetoothd is
not running" (adapter absent), then, when bluetoothd is back, it reloads BlueZ's objects
and scans again on hci0.

Named test-zz-... so that it runs last: the fixtures' GATT apps and adverts die with the
bluetoothd they were registered with, and later tests would find no peripherals."""
import os, subprocess, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *

BIN = bleexplr_bin()
LAB = os.environ['BLEEXPLR_LAB_SH']


def guest(cmd):
    p = subprocess.run([LAB, 'exec', cmd], capture_output=True, text=True, timeout=60)
    log('guest$', cmd, '->', p.returncode, p.stdout.strip()[-200:])
    return p


def test():
    cmd = "'%s' --bus '%s' --adapter hci0; echo EXIT=$?; sleep 30" % (BIN, bus_address())
    app = TmuxApp(cmd, 110, 32)
    try:
        app.wait_screen('hci0 scanning', lambda s: 'hci0 on · scanning' in s)
        app.wait_screen('devices', lambda s: ITAG in s)
        guest('pkill -x bluetoothd; for i in $(seq 300); do pgrep -r RSD -x bluetoothd >/dev/null || break; sleep 0.1; done; pgrep -a -r RSD -x bluetoothd || echo stopped')  # a live one (not a zombie) gone, up to 30 s
        app.wait_screen('bluetoothd is not running', lambda s: 'bluetoothd is not running' in s and 'no adapter' in s)
        guest('/usr/libexec/bluetooth/bluetoothd -n -E > /xfer/log/bluetoothd-restarted.log 2>&1 & sleep 1; pgrep -x bluetoothd')
        app.wait_screen('hci0 back, scanning again', lambda s: 'hci0 on · scanning' in s, timeout=45)
        app.keys('q')
        s = app.wait_screen('exit', lambda s: 'EXIT=' in s)
        check('EXIT=0' in s, 'q exits 0')
    finally:
        app.kill()


main(test)
