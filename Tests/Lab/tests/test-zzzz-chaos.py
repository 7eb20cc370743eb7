#!/usr/bin/python3
"""bluetoothd dies N times (LAB_CHAOS_KILLS, default 10) in one session, at random moments (seed printed,
LAB_CHAOS_SEED sets it): SIGTERM or SIGKILL while the app (recording) is scanning, connecting to
`bleexplr serve`'s device, resolving it, reading from it or getting its notifications, while `bleexplr
watch` follows the Lab iTag's FFE1 and `serve` serves on hci7. After each restart (lab.sh bluetoothd
start: stage2's flags) the app scans on hci0 again, watch subscribes again, serve advertises again, all
by themselves, and the fixtures register again. Then:
- every press notified while watch was subscribed reached watch (each press has its own value), every
  FFE1 notification bluetoothd put on the bus reached watch, none twice;
- the recording validates against docs/recording.schema.json, with one outage (adapter absent) per
  kill and no "no adapter hci0" error (bluetoothd still starting is not a missing adapter);
- recovery times (bluetoothd's name owned again -> app scanning / watch subscribed / serve advertising).

run-tests.sh runs it only when named or with LAB_CHAOS=1 (`make lab-chaos`): else NOT RUN."""
# lab-timeout: 1200
import importlib.util, os, random, shutil, signal, statistics, subprocess, sys, tempfile, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *

if os.environ.get('LAB_CHAOS') != '1':
    log('NOT RUN: chaos test runs with make lab-chaos (or run-tests.sh zzzz-chaos, or LAB_CHAOS=1)')
    sys.exit(NOT_RUN)

_spec = importlib.util.spec_from_file_location('serve_common', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'test-serve.py'))
serve = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(serve)

BIN = bleexplr_bin()
KILLS = int(os.environ.get('LAB_CHAOS_KILLS', '10'))
SEED = int(os.environ.get('LAB_CHAOS_SEED') or random.SystemRandom().randrange(1 << 31))
MOMENTS = ['scanning', 'connecting', 'resolving', 'reading', 'notifying']
NAME = serve.NAME
VALIDATOR = os.path.join(ROOT, 'Tests', 'tools', 'validate_recording.py')
SCHEMA = os.path.join(ROOT, 'docs', 'recording.schema.json')


class Bus:
    """The test's own view of the bus: when org.bluez gets an owner, and every FFE1 value bluetoothd puts on it."""

    def __init__(self, itag_path):
        self.bus = connect_bus()
        self.owned_at = []
        self.ffe1 = []   # (monotonic, value) of every Value change under the iTag's FFE1
        self.itag_path = itag_path
        self.bus.add_signal_receiver(self._owner, 'NameOwnerChanged', 'org.freedesktop.DBus', 'org.freedesktop.DBus',
                                     '/org/freedesktop/DBus', arg0=BLUEZ)
        self.bus.add_signal_receiver(self._changed, 'PropertiesChanged', PROPS, path_keyword='path')
        self.ffe1_paths = set()

    def _owner(self, name, old, new):
        if new:
            self.owned_at.append(time.monotonic())
            log('org.bluez owned again by', new)

    def _changed(self, iface, changed, invalidated, path=None):
        if iface == CHRC_I and 'Value' in changed and str(path).startswith(self.itag_path + '/'):
            self.ffe1.append((str(path), bytes_of(changed['Value'])))

    def learn_ffe1(self):
        om = dbus.Interface(self.bus.get_object(BLUEZ, '/'), OM)
        for p, i in om.GetManagedObjects().items():
            if str(p).startswith(self.itag_path + '/') and CHRC_I in i and str(i[CHRC_I]['UUID']).startswith('0000ffe1'):
                self.ffe1_paths.add(str(p))

    def ffe1_values(self):
        return [v for p, v in self.ffe1 if p in self.ffe1_paths]


def until(what, cond, timeout):
    """Pumps the GLib loop (the Bus signals) until cond() is true; returns the monotonic time it held."""
    r = pump(timeout, cond)
    if not r:
        fail('%s: not within %.0fs' % (what, timeout))
    return time.monotonic()


def test():
    check(os.access(BIN, os.X_OK), 'bleexplr binary at %s' % BIN)
    log('chaos: %d kills, seed %d (LAB_CHAOS_SEED=%d repeats this run)' % (KILLS, SEED, SEED))
    rnd = random.Random(SEED)
    tmp = tempfile.mkdtemp(prefix='bx-chaos-')
    fx = Fixtures()
    c = Central()
    c.scan()
    itag = c.find_name(ITAG)
    itag_addr = str(c.devices[itag]['Address'])
    c.stop_scan()
    served_addr = serve.adapter_address('hci7')
    bus = Bus(itag)

    spec = os.path.join(tmp, 'spec.json')
    with open(spec, 'w') as f:
        json.dump(serve.SPEC, f)
    record, presses_file = os.path.join(tmp, 'app.jsonl'), os.path.join(tmp, 'presses.txt')
    srv = serve.Server(spec)
    watch = Background.bleexplr(tmp, 'watch', itag_addr, 'FFE1', '--exec', 'echo "$BLE_SEQ $BLE_HEX" >> ' + presses_file,
                                '--queue', os.path.join(tmp, 'queue.jsonl'), '--json', name='watch')
    app = TmuxApp.bleexplr('--record', record, width=120, height=36)
    serve_events = []   # (monotonic, event)

    def serve_drain():
        while not srv.lines.empty():
            serve_events.append((time.monotonic(), srv.lines.get()))

    def serve_advertising_since(t):
        serve_drain()
        return next((at for at, e in serve_events if at >= t and e.get('event') == 'advertising'), None)

    def subscriptions():
        return [e for e in watch.events() if e.get('event') == 'subscribed']

    def heard():
        """The values watch queued (its hook reports say `#N queued`), from the file its --exec writes."""
        if not os.path.exists(presses_file):
            return []
        with open(presses_file) as f:
            return [l.split()[1] for l in f if len(l.split()) == 2]

    sent, in_flight, figures, outages = [], [], [], []
    value_n = [0]

    def press(expect=True):
        value_n[0] += 1
        v = value_n[0].to_bytes(2, 'big')
        ok = bool(fx.PressValue(ay(v)))
        if expect:
            check(ok, 'press %s notified (watch subscribed)' % v.hex())
            sent.append(v.hex())
            watch.wait_for('watch heard press %s' % v.hex(), lambda: v.hex() in heard(), 15)
        else:
            in_flight.append(v.hex())
        return v.hex()

    def list_screen():
        app.keys('Escape', 'Escape', 'Escape')
        return app.wait_screen('the scan list, hci0 scanning', lambda s: 'hci0 on · scanning' in s and 'Scan › ' not in s.split('\n')[0], 30)

    def connect_served():
        # By its address: its name is "bx Serve" while it advertises and the GAP name ("BlueZ
        # 5.x") once connected, and a restarted bluetoothd starts from the name it cached; a
        # filter on the name found no row then, and Enter on an empty list did nothing.
        s = app.only(served_addr)
        log('connecting from the row:', ' '.join(next(r for r in app.rows(s) if served_addr in r).split()[:4]))
        app.keys('Enter')

    def on_device(s):   # its crumb is its GAP name once connected (the served adapter's: "BlueZ 5.x")
        return 'Scan › ' in s.split('\n')[0] and served_addr in s.split('\n')[1]

    def device_screen():
        return app.wait_screen(NAME + "'s device screen with its services",
                               lambda s: on_device(s) and '● connected' in s and 'FFF0' in s.upper(), 60)

    def open_char(uuid):
        """j down to the characteristic's row as the app shows it (its tree: the rows after the header), Enter."""
        lines = app.screen().split('\n')
        rows = []
        for l in lines[3:]:
            if not l.strip():
                break
            rows.append(l)
        at = [i for i, l in enumerate(rows) if uuid.upper() in l]
        check(len(at) == 1, "the device screen lists %s once (%s)" % (uuid, rows))
        app.keys(*(['k'] * len(rows)))   # to the top: the device screen keeps its cursor from the last visit
        for _ in range(at[0]):
            app.keys('j')
        app.keys('Enter')
        app.wait_screen('the characteristic ' + uuid, lambda s: uuid.upper() in s.split('\n')[1], 15)

    try:
        app.wait_screen('hci0 scanning', lambda s: 'hci0 on · scanning' in s, 30)
        srv.wait(lambda e: e.get('event') == 'advertising', 30, 'serve advertises')
        watch.wait_for('watch subscribed to FFE1', lambda: len(subscriptions()) >= 1, 45)
        bus.learn_ffe1()
        press()
        for k in range(1, KILLS + 1):
            moment = rnd.choice(MOMENTS)
            sig = rnd.choice(['TERM', 'KILL'])
            log('==== kill %d/%d: SIG%s while the app is %s' % (k, KILLS, sig, moment))
            list_screen()
            if moment == 'connecting':
                connect_served()
                time.sleep(rnd.uniform(0, 0.4))
            elif moment == 'resolving':
                connect_served()
                app.wait_screen('connected', on_device, 60)
                time.sleep(rnd.uniform(0, 0.3))
            elif moment in ('reading', 'notifying'):
                connect_served()
                device_screen()
                if moment == 'reading':
                    open_char(serve.GREETING)
                    app.keys('r')
                    time.sleep(rnd.uniform(0, 0.2))
                else:
                    open_char(serve.COUNTER)
                    app.keys('n')
                    app.wait_screen('notify on', lambda s: 'Notify on' in s, 15)
                    for i in range(rnd.randint(1, 4)):
                        srv.send('notify %s %02x' % (serve.COUNTER, i + 1))
            else:
                time.sleep(rnd.uniform(0, 2))
            if rnd.random() < 0.5:
                press(expect=False)   # a press just before the kill: it may or may not reach watch
            log('app at the kill:', ' | '.join(app.screen().split('\n')[:2]))
            subs_before = len(subscriptions())
            t_kill = time.monotonic()
            kill_bluetoothd(sig)
            # the status bar (the message line may say why a pending Connect or read failed instead)
            app.wait_screen('no adapter (bluetoothd is not running)', lambda s: ' no adapter · ' in s or 'bluetoothd is not running' in s, 20)
            outages.append(t_kill)
            time.sleep(rnd.uniform(0, 1.5))
            owned = len(bus.owned_at)
            t_up = time.monotonic()
            start_bluetoothd()
            until('org.bluez owned again', lambda: len(bus.owned_at) > owned, 20)
            app.keys('Escape', 'Escape', 'Escape')   # to the scan list (a device screen stays, marked disconnected)
            back = {}
            probes = {'app scanning': lambda: 'hci0 on · scanning' in app.screen(),
                      'watch subscribed': lambda: len(subscriptions()) > subs_before,
                      'serve advertising': lambda: serve_advertising_since(t_kill)}
            end = t_up + 60
            while len(back) < len(probes) and time.monotonic() < end:
                for n, probe in probes.items():
                    if n not in back and probe():
                        back[n] = time.monotonic() - t_up
                pump(0.1)
            if len(back) < len(probes):
                watch.dump()
                fail('kill %d: not back within 60 s of bluetoothd starting: %s (back: %s); app:\n%s'
                     % (k, [n for n in probes if n not in back], back, app.screen()))
            list_screen()
            fx.settle(30)
            figures.append((back['app scanning'], back['watch subscribed'], back['serve advertising']))
            log('kill %d (%s, SIG%s): back after %.1fs: app scanning +%.1fs, watch subscribed +%.1fs, serve advertising +%.1fs'
                % (k, moment, sig, t_up - t_kill, *figures[-1]))
            bus.learn_ffe1()
            for _ in range(rnd.randint(1, 2)):
                press()

        # ---- afterwards
        pump(2)
        got = heard()
        log('sent while subscribed: %d, in flight at a kill: %d, watch heard: %d' % (len(sent), len(in_flight), len(got)))
        check(not [v for v in sent if v not in got], 'every press notified while watch was subscribed reached watch (%d)' % len(sent))
        on_bus = [v.hex() for v in bus.ffe1_values() if v.hex() in sent + in_flight]
        check(not [v for v in on_bus if v not in got],
              'every FFE1 notification bluetoothd put on the bus reached watch (%d on the bus, missing %s)'
              % (len(on_bus), [v for v in on_bus if v not in got]))
        check(len(got) == len(set(got)), 'watch heard no press twice (%s)' % got)
        check(set(got) <= set(sent + in_flight), 'watch heard only presses that were made')
        p = bx('read', served_addr, serve.GREETING, '--json', timeout=90)
        check(p.returncode == 0 and jsonl(p)[0]['hex'] == b'hello'.hex(), 'a central reads the served value after the last restart')

        app.keys('Escape', 'Escape', 'Escape')
        app.quit(timeout=20)
        v = subprocess.run(['/usr/bin/python3', VALIDATOR, SCHEMA, record], capture_output=True, text=True)
        check(v.returncode == 0, 'the recording validates (%s)' % (v.stdout + v.stderr).strip()[-600:])
        with open(record, encoding='utf-8') as f:
            lines = [json.loads(l) for l in f if l.strip()]
        absent = [l for l in lines if l.get('type') == 'adapter' and l.get('power') == 'absent']
        check(len(absent) == KILLS, 'the recording has one outage (adapter absent) per kill: %d for %d kills' % (len(absent), KILLS))
        noadapter = [l for l in lines if l.get('type') == 'error' and 'no adapter' in json.dumps(l)]
        check(not noadapter, 'no "no adapter hci0" error while bluetoothd was starting (%s)' % noadapter[:2])
        power = [l['power'] for l in lines if l.get('type') == 'adapter']
        check(all(a != b for a, b in zip(power, power[1:]) if a == 'absent'), 'every outage is followed by the adapter back (%s)' % power)
    except TestFailure:
        # What the app saw last, for a failure that does not repeat with its seed
        log('app at the failure:\n' + app.screen())
        try:
            with open(record, encoding='utf-8', errors='replace') as f:
                tail = [l for l in f if '"type":"advertisement"' not in l.replace(' ', '')][-40:]
            log('the recording, its last 40 lines but advertisements:\n' + ''.join(tail))
        except OSError as e:
            log('no recording to show:', e)
        raise
    finally:
        app.kill()
        wrc = watch.stop(signal.SIGTERM)
        src = srv.stop()
        if os.environ.get('LAB_CHAOS_KEEP'):
            log('kept', tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    check(wrc == 0, 'watch exits 0 on SIGTERM')
    check(src == 0, 'serve exits 0 on SIGINT')
    check(not srv.invalid, 'every line serve printed is valid (%s)' % srv.invalid[:2])
    names = ('app scanning', 'watch subscribed', 'serve advertising')
    for i, n in enumerate(names):
        xs = [f[i] for f in figures]
        log('FIGURE %-18s min %.1fs median %.1fs max %.1fs (%d kills, seed %d)' % (n, min(xs), statistics.median(xs), max(xs), len(xs), SEED))


def ay(b):
    return dbus.Array([dbus.Byte(x) for x in b], signature='y')


main(test)
