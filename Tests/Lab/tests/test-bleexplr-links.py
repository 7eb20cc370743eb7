#!/usr/bin/python3
"""Two links at once in the real bleexplr TUI over the lab's bluetoothd: 'Lab iTag' and
BlueZ's example server (Heart Rate) connected together, notifications on for both, the
iTag pressed while the heart rate's screen is shown; the top bar lists both links, `1` and
`2` go to each one's screen as it was left, and the recording holds the notifications of both."""
import json, os, re, subprocess, sys, tempfile, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *

BIN = bleexplr_bin()
FFE1 = '0000ffe1-0000-1000-8000-00805f9b34fb'
HRM = '00002a37-0000-1000-8000-00805f9b34fb'


def device(objs, pred):
    return next((str(p) for p, i in objs.items() if str(p).startswith('/org/bluez/hci0/dev_') and DEV_I in i and pred(i[DEV_I])), None)


def open_characteristic(app, uuid, dev, what):
    for _ in range(tree_row(dev, uuid)):
        app.keys('j')
    app.keys('Enter')
    return app.wait_screen(what, lambda s: uuid[4:8].upper() in s.split('\n')[1])


def connect_from_list(app, filter_text, crumb):
    app.only(filter_text)
    app.keys('Enter')
    # The crumb is the device's name, which can change once connected: the example server
    # advertises "TestAdvertisement" and its GAP name is bluetoothd's ("BlueZ 5.66").
    return app.wait_screen(filter_text + "'s device screen", lambda s: crumb(s.split('\n')[0]) and '● connected' in s, timeout=60)


def test():
    check(os.access(BIN, os.X_OK), 'bleexplr binary at %s' % BIN)
    fx = Fixtures()
    tmp = tempfile.mkdtemp(prefix='bxlinks')
    rec = os.path.join(tmp, 'links.jsonl')
    app = TmuxApp.bleexplr('--record', rec, width=120)
    try:
        app.wait_screen('hci0 scanning', lambda s: 'hci0 on · scanning' in s)
        app.wait_screen('Lab iTag and the example server heard', lambda s: ITAG in s and 'TestAdvertisement' in s, timeout=45)
        connect_from_list(app, ITAG, lambda top: 'Scan › ' + ITAG in top)
        objs = dbus.Interface(connect_bus().get_object(BLUEZ, '/'), OM).GetManagedObjects()
        itag = device(objs, lambda d: str(d.get('Name', '')) == ITAG)
        itag_addr = str(objs[itag][DEV_I]['Address'])
        open_characteristic(app, FFE1, itag, "the iTag button's screen")
        app.keys('n')
        app.wait_screen('iTag notifications on', lambda s: 'Notify on' in s)
        check(bool(fx.Press()), 'press 1 sent')
        app.wait_screen('the first press', lambda s: '  notify  ' in s)
        app.keys('Escape', 'Escape', 'Escape')
        s = app.wait_screen("the list, the iTag's link in the top bar", lambda s: '1 %s ●' % ITAG in s.split('\n')[0])
        connect_from_list(app, 'TestAdvertisement', lambda top: 'Scan › ' in top and 'Scan › ' + ITAG not in top)
        objs = dbus.Interface(connect_bus().get_object(BLUEZ, '/'), OM).GetManagedObjects()
        s = app.screen()
        shown = re.search(r'([0-9A-F]{2}(?::[0-9A-F]{2}){5})  ● connected', s)
        check(shown is not None, "the example server's address on its device screen")
        hrm = device(objs, lambda d: str(d.get('Address', '')) == shown.group(1))
        check(hrm is not None, "bluetoothd knows the example server's device")
        hrm_addr = str(objs[hrm][DEV_I]['Address'])
        check(bool(objs[itag][DEV_I].get('Connected')), 'the iTag is still connected (bluetoothd says so)')
        open_characteristic(app, HRM, hrm, 'the Heart Rate Measurement screen')
        app.keys('n')
        s = app.wait_screen('a heart rate notified, both links up in the top bar',
                        lambda s: '  notify  ' in s and re.search('1 %s ●  2 \\S.* ●' % ITAG, s.split('\n')[0]), timeout=30)
        check(bool(fx.Press()), "press 2 sent while the heart rate's screen is shown")
        time.sleep(1.5)
        app.keys('1')
        s = app.wait_screen("the iTag's screen, as it was left (its tree)", lambda s: s.split('\n')[0].startswith(' bleexplr │ Scan › ' + ITAG + '   1 '))
        app.keys('Enter')
        s = app.wait_screen("the button's history: both presses", lambda s: '2 values' in s or '3 values' in s)
        app.keys('2')
        app.wait_screen("the heart rate's screen again", lambda s: ' › Heart Rate Measurement' in s.split('\n')[0] and ITAG not in s.split('\n')[0].split('   ')[0])
        app.quit()
    finally:
        app.kill()
    lines = [json.loads(l) for l in open(rec, encoding='utf-8') if l.strip()]
    notes = [l for l in lines if l.get('type') == 'notification']
    from_itag = [l for l in notes if l.get('address') == itag_addr]
    from_hrm = [l for l in notes if l.get('address') == hrm_addr]
    log('recorded notifications: %d from the iTag, %d from the heart rate' % (len(from_itag), len(from_hrm)))
    check(len(from_itag) == 2, 'both presses recorded (%d)' % len(from_itag))
    check(len(from_hrm) >= 1, 'the heart rate recorded')
    first_hrm = next(i for i, l in enumerate(lines) if l in from_hrm)
    check(any(l in from_itag for l in lines[first_hrm:]), "a press recorded while the heart rate's screen was shown")


main(test)
