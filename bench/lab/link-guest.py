#!/usr/bin/python3
"""The guest side of `make bench-link`: runs INSIDE the lab's VM, on its Unix system bus (file
descriptors pass: AcquireNotify, AcquireWrite), as root. bench/lab/link-speed (on the host) puts
this folder's scripts in the share and runs

    python3 link-guest.py notify|write --consumers A,B,... --rounds N --count N --size B
                          [--bleexplr PATH] [--bleak-python PY] [--bleak-path DIR] [--peripheral hci7]

One JSON object a line on stdout: {"kind": "run", ...} for each measurement, {"kind": "info", ...},
{"kind": "error", ...}. Nothing here is asserted: the host prints the tables.

notify: link-peripheral.py on --peripheral (hci7) sends --count notifications of --size bytes as fast
as bluetoothd takes them, then EOM, on each subscription; each consumer subscribes from hci0:
  bleexplr-acquire  bleexplr notify ADDR UUID --until EOM (--record on): its default, AcquireNotify
  bleexplr-start    the same with BLEEXPLR_NOTIFY=start: StartNotify (PropertiesChanged signals)
  bleexplr-norecord bleexplr-acquire without --record: what recording costs
  bleak-acquire     link-bleak.py notify ... acquire: bleak's start_notify with use_start_notify=False
  bleak-start       link-bleak.py notify ... start: bleak's default, StartNotify
  bluetoothctl      bluetoothctl (stdout a pipe, line-buffered with stdbuf): select, connect,
                    gatt.select-attribute, gatt.notify on (StartNotify); it prints every value
write: the same peripheral counts Write Commands (its characteristic takes them through AcquireWrite);
  bleak             write_gatt_char(response=False) in a loop: WriteValue(type=command)
  bluetoothctl      gatt.write "0x.. ..." a line each: WriteValue
  bluetoothctl-acquire  gatt.acquire-write first: the same lines go into the socket
  bleexplr          bleexplr write ADDR UUID --file FILE --type command --framing plain: AcquireWrite where
                    it can (when the binary has `write --file`; else the run says "not run")
  bleexplr-value    the same with BLEEXPLR_WRITE=value: WriteValue

Each run: the link down, the peripheral found by a discovery on hci0, the consumer started; CPU
(utime+stime of /proc/PID/stat) of the consumer, bluetoothd, dbus-daemon and Bumble's controllers
(the emulated radio) is read when the stream starts (the peripheral's first notification written;
for writes, the writer's first write) and when the consumer saw the end (EOM) or the writer its
last write; what the link carried is
counted from a btmon capture of each run (ATT notifications, Multiple Handle Value Notifications
split, and Write Commands, into hci0 / the peripheral's adapter). Rounds alternate the order of the consumers."""
import fcntl, json, os, queue, re, signal, socket, struct, subprocess, sys, threading, time
import dbus
from btsnoop import ACL_TX, ACL_RX, ATT_CID, NOTIFY, MULTI_NOTIFY, l2cap_frames, notified_values   # Tests/Lab/lib, copied beside it

HERE = os.path.dirname(os.path.abspath(__file__))
BLUEZ, PROPS, OM = 'org.bluez', 'org.freedesktop.DBus.Properties', 'org.freedesktop.DBus.ObjectManager'
DEV_I, CHRC_I, ADAPTER_I = 'org.bluez.Device1', 'org.bluez.GattCharacteristic1', 'org.bluez.Adapter1'
NOTIFY_UUID = '626c696e-0000-4000-8000-00000000c001'
WRITE_UUID = '626c696e-0000-4000-8000-00000000c002'
TICK = os.sysconf('SC_CLK_TCK')
A = sys.argv[1:]


def opt(name, default):
    return A[A.index(name) + 1] if name in A else default


SUITE = A[0] if A else ''
PERIPH = opt('--peripheral', 'hci7')
ROUNDS = int(opt('--rounds', '3'))
COUNT = int(opt('--count', '3000'))
SIZE = int(opt('--size', '20'))
BLEEXPLR = opt('--bleexplr', '/tmp/bleexplr/bleexplr')
BLEEXPLR_LIB = opt('--bleexplr-lib', '')   # its Swift runtime (a debug build links it; make release has it inside)
BLEAK_PY = opt('--bleak-python', 'python3')
BLEAK_PATH = opt('--bleak-path', '')
WORK = '/tmp/linkbench'
CAPTURE = opt('--capture', '0') == '1'   # a btmon capture of each run (costs as much CPU as a client)
CHILD_ENV = {k: v for k, v in os.environ.items() if k != 'DBUS_SYSTEM_BUS_ADDRESS'}


def emit(kind, **kw):
    print(json.dumps(dict(kind=kind, **kw)), flush=True)


# ------------------------------------------------------------------ what the kernel and /proc say
def times(pid):
    """utime and stime of a process (all its threads), seconds; None when it is gone."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            fields = f.read().rsplit(')', 1)[1].split()
        return int(fields[11]) / TICK, int(fields[12]) / TICK
    except (OSError, ValueError, IndexError, TypeError):
        return None


def cpu(pid):
    """utime + stime of a process (all its threads), seconds; None when it is gone."""
    t = times(pid)
    return t[0] + t[1] if t else None


def pid_of(name):
    """The newest live process of that name (a bluetoothd killed by an earlier test can linger as a zombie)."""
    p = subprocess.run(['pgrep', '-n', '-r', 'RSD', '-x', name], capture_output=True, text=True)
    return int(p.stdout.split()[0]) if p.stdout.split() else None


def bumble_pid():
    try:
        return int(open('/run/bumble.pid').read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


HCIGETDEVINFO = 0x800448d3   # _IOR('H', 211, int)


def hci_stats(index):
    """(acl_mtu, acl_tx, acl_rx) of hciN from the kernel (struct hci_dev_info)."""
    s = socket.socket(31, socket.SOCK_RAW, 1)   # AF_BLUETOOTH, BTPROTO_HCI
    try:
        buf = bytearray(struct.pack('<H', index) + bytes(90))
        fcntl.ioctl(s.fileno(), HCIGETDEVINFO, buf)
    finally:
        s.close()
    acl_mtu = struct.unpack_from('<H', buf, 44)[0]
    err_rx, err_tx, cmd_tx, evt_rx, acl_tx, acl_rx = struct.unpack_from('<6I', buf, 52)
    return acl_mtu, acl_tx, acl_rx


def wakes(pid):
    """The voluntary context switches of a process's threads (its wake-ups); None when it is gone."""
    try:
        woke = 0
        for tid in os.listdir('/proc/%d/task' % pid):
            with open('/proc/%d/task/%s/status' % (pid, tid)) as f:
                woke += next(int(l.split()[1]) for l in f if l.startswith('voluntary_ctxt_switches'))
        return woke
    except (OSError, ValueError, IndexError, StopIteration):
        return None


class Sampler:
    """In a thread: every 20 ms the ACL frames the kernel has taken from hci0's and the peripheral's
    controllers (acl_rx of each: Bumble hands the host one frame per L2CAP PDU), every 100 ms the
    consumer's CPU time; `moved` is when the link last carried something."""

    def __init__(self, periph, pid, every=5):
        self.p, self.pid, self.rows, self.cpus, self.every = periph, pid, [], [], every
        self.details = []
        self.moved, self.stop_ = time.monotonic(), threading.Event()
        self.th = threading.Thread(target=self.run, daemon=True)
        self.th.start()

    def run(self):
        i, last = 0, None
        while not self.stop_.is_set():
            t = time.monotonic()
            row = (t, hci_stats(0)[2], hci_stats(self.p)[2], hci_stats(0)[1], hci_stats(self.p)[1])
            self.rows.append(row)
            if last is not None and row[1:] != last:
                self.moved = t
            last = row[1:]
            if i % self.every == 0:
                used, woke = times(self.pid), wakes(self.pid)   # one read of its times for both
                self.cpus.append((t, used[0] + used[1] if used else None))
                self.details.append((t, used + (woke,) if used and woke is not None else None))
            i += 1
            self.stop_.wait(0.02)

    def stop(self):
        self.stop_.set()
        self.th.join()

    def burst(self, col, frames):
        """The start of the first 20 ms in which column col grew by `frames` or more (None: never)."""
        for a, b in zip(self.rows, self.rows[1:]):
            if b[col] - a[col] >= frames:
                return a[0]

    def detail_between(self, t0, t1):
        """The consumer's user and system CPU seconds and wake-ups between the samples last before t0 and t1."""
        a = [d for tt, d in self.details if tt <= t0 and d is not None]
        b = [d for tt, d in self.details if tt <= t1 and d is not None]
        if not a or not b:
            return None
        return dict(user=b[-1][0] - a[-1][0], system=b[-1][1] - a[-1][1], wakes=b[-1][2] - a[-1][2])

    def cpu_at(self, t):
        """The consumer's CPU time sampled last before t."""
        before = [c for tt, c in self.cpus if tt <= t and c is not None]
        return before[-1] if before else None

    def span(self, col, since, until):
        """Frames of column col (1: into hci0, 2: into the peripheral's adapter) between since and until, and
        the time from the last sample before the first of them to the first sample with the last of them."""
        r = [x for x in self.rows if since <= x[0] <= until]
        if len(r) < 2:
            return 0, None
        base, final = r[0][col], r[-1][col]
        if final - base < 2:
            return final - base, None
        a = max(i for i, x in enumerate(r) if x[col] <= base + 1)   # a stray response may come first
        b = min(i for i, x in enumerate(r) if x[col] >= final)
        return final - base, (r[b][0] - r[a][0]) if b > a else None


# ------------------------------------------------------------------ what the link carried: a btmon capture
WRITE_CMD = 0x52


def capture_start(name):
    path = os.path.join(WORK, 'link-%s.snoop' % name)
    if os.path.exists(path):
        os.remove(path)
    p = subprocess.Popen(['btmon', '-w', path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    end = time.monotonic() + 5
    while time.monotonic() < end and not os.path.exists(path):
        time.sleep(0.05)
    time.sleep(0.3)
    return p, path


def capture_stop(p):
    p.send_signal(signal.SIGINT)
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def att_pdus(path, index, op):
    """(seconds, ATT PDU) of every whole L2CAP frame on the ATT channel that controller `index` sent
    (op ACL_TX, fragments put together) or got (ACL_RX), from a btmon capture (btsnoop, monitor format)."""
    return [(ts, p) for i, o, cid, p, ts in l2cap_frames(path) if i == index and o == op and cid == ATT_CID]


def values(pdus, kind):
    """(seconds, value) of each notification (a Multiple Handle Value Notification is several) or Write Command."""
    for ts, p in pdus:
        for v in (notified_values(p) if kind == NOTIFY else [p[3:]] if p[0] == WRITE_CMD else []):
            yield ts, v


def carried(path, index, op, kind):
    """What the link carried, from the capture: data values (the EOM marker left out), PDUs, first and last."""
    pdus = att_pdus(path, index, op)
    mine = [p for p in pdus if p[1][0] in ((NOTIFY, MULTI_NOTIFY) if kind == NOTIFY else (WRITE_CMD,))]
    vals = [(ts, v) for ts, v in values(mine, kind) if v != b'EOM']
    if not vals:
        return {'values': 0, 'pdus': len(mine)}
    return {'values': len(vals), 'pdus': len(mine), 'seconds': vals[-1][0] - vals[0][0],
            'multi': sum(1 for p in mine if p[1][0] == MULTI_NOTIFY)}


# ------------------------------------------------------------------ the guest's bluetoothd, over D-Bus
bus = dbus.SystemBus()


def prop(path, iface, name, default=None):
    try:
        return dbus.Interface(bus.get_object(BLUEZ, path), PROPS).Get(iface, name)
    except dbus.DBusException:
        return default


def objects():
    return dbus.Interface(bus.get_object(BLUEZ, '/'), OM).GetManagedObjects()


def chrc_path(dev, uuid):
    for p, ifs in objects().items():
        if str(p).startswith(dev + '/') and CHRC_I in ifs and str(ifs[CHRC_I]['UUID']).lower() == uuid:
            return str(p)


def link_down(dev, timeout=20):
    if prop(dev, DEV_I, 'Connected'):
        try:
            dbus.Interface(bus.get_object(BLUEZ, dev), DEV_I).Disconnect(timeout=20)
        except dbus.DBusException:
            pass
    end = time.monotonic() + timeout
    while time.monotonic() < end and prop(dev, DEV_I, 'Connected'):
        time.sleep(0.2)
    time.sleep(2.0)   # the kernel ends the link after bluetoothd says so (a connect 1.5 s later can fail on 5.82)


def discover(dev, timeout=30):
    """hci0 forgets the peripheral, then a discovery until bluetoothd knows it again; then stopped. Forgotten
    first: bluetoothd keeps a device's GATT objects after a disconnect, and a bluetoothctl started then adds
    them before its `select` makes hci0 its controller, so it never lists them (gatt.select-attribute finds
    nothing); every client starts from the same state."""
    ad = dbus.Interface(bus.get_object(BLUEZ, '/org/bluez/hci0'), ADAPTER_I)
    if prop(dev, DEV_I, 'Address') is not None:
        try:
            ad.RemoveDevice(dbus.ObjectPath(dev))
        except dbus.DBusException as e:
            emit('info', what='RemoveDevice: %s' % e.get_dbus_message())
    try:
        ad.SetDiscoveryFilter(dbus.Dictionary({'Transport': 'le', 'DuplicateData': dbus.Boolean(True)}, signature='sv'))
        ad.StartDiscovery()
    except dbus.DBusException as e:
        emit('info', what='StartDiscovery: %s' % e.get_dbus_message())
    end, seen = time.monotonic() + timeout, False
    while time.monotonic() < end and not seen:
        seen = prop(dev, DEV_I, 'Address') is not None
        time.sleep(0.2)
    try:
        ad.StopDiscovery()
    except dbus.DBusException:
        pass
    return seen


# ------------------------------------------------------------------ processes
class Proc:
    """A child with its stdout read line by line into `q` as (tag, monotonic time, line)."""

    def __init__(self, tag, argv, q, env=None, stdin=False, cwd=WORK):
        self.tag, self.q = tag, q
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=open(os.path.join(WORK, tag + '.err'), 'wb'),
                                  env=dict(CHILD_ENV, **(env or {})), cwd=cwd, start_new_session=True)
        self.pid = self.p.pid
        self.th = threading.Thread(target=self.read, daemon=True)
        self.th.start()

    def read(self):
        for line in iter(self.p.stdout.readline, b''):
            self.q.put((self.tag, time.monotonic(), line.decode('utf-8', 'replace').rstrip('\n')))
        self.q.put((self.tag, time.monotonic(), None))

    def send(self, text):
        try:
            self.p.stdin.write(text.encode())
            self.p.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def end(self, timeout=20):
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.p.pid, signal.SIGTERM)
            try:
                return self.p.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.p.pid, signal.SIGKILL)
                return self.p.wait()

    def stderr(self):
        try:
            return open(os.path.join(WORK, self.tag + '.err'), errors='replace').read()
        except OSError:
            return ''


ANSI = re.compile(r'\x1b\[[0-9;?]*[A-Za-z]|[\x01\x02\r]')


def snapshot(pids):
    return {k: cpu(v) for k, v in pids.items() if v}


class Peripheral:
    def __init__(self, q):
        self.q, self.events = q, []
        self.proc = Proc('peripheral', ['python3', '-u', os.path.join(HERE, 'link-peripheral.py'), '--adapter', PERIPH,
                                        '--count', str(COUNT), '--size', str(SIZE)], q, stdin=True)


# ------------------------------------------------------------------ one notification run
def consumer_argv(name, addr, rec, out):
    if name.startswith('bleexplr'):
        record = [] if name == 'bleexplr-norecord' else ['--record', rec]
        return [BLEEXPLR, '--adapter', 'hci0'] + record + ['notify', addr, NOTIFY_UUID, '--until', 'EOM',
                '--output', out, '--json'], dict({'LD_LIBRARY_PATH': BLEEXPLR_LIB},
                                               **({'BLEEXPLR_NOTIFY': 'start'} if name == 'bleexplr-start' else {}))
    if name.startswith('bleak'):
        return [BLEAK_PY, '-u', os.path.join(HERE, 'link-bleak.py'), 'notify', addr, NOTIFY_UUID,
                'acquire' if name == 'bleak-acquire' else 'start'], {'PYTHONPATH': BLEAK_PATH}
    if name == 'bluetoothctl':
        return ['stdbuf', '-oL', 'bluetoothctl'], {}
    raise SystemExit('unknown consumer %s' % name)


def wait_for(q, pred, timeout, on_line=None):
    """Takes (tag, t, line) from q until pred(tag, t, line) is true; on_line sees every one. None on timeout."""
    end = time.monotonic() + timeout
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return None
        try:
            item = q.get(timeout=min(left, 0.25))
        except queue.Empty:
            continue
        if on_line:
            on_line(*item)
        if pred(*item):
            return item


def periph_event(line):
    try:
        return json.loads(line) if line and line.startswith('{') else {}
    except ValueError:
        return {}


def bluetoothctl_prepare(c, q, addr, dev, central, want_path_of, log):
    """select hci0, connect, wait for ServicesResolved (bluetoothd's), select the attribute; returns its path."""
    c.send('select %s\n' % central)
    time.sleep(0.5)
    c.send('connect %s\n' % addr)
    end = time.monotonic() + 60
    while time.monotonic() < end and not prop(dev, DEV_I, 'ServicesResolved'):
        try:
            log(*q.get(timeout=0.2))
        except queue.Empty:
            pass
    if not prop(dev, DEV_I, 'ServicesResolved'):
        return None
    path = chrc_path(dev, want_path_of)
    if not path:
        return None
    # bluetoothctl learns the attribute a moment after ServicesResolved: select until its prompt shows it
    tail, selected = path.split('/dev_', 1)[1].split('/', 1)[1], [False]

    def watch(tag, t, line):
        log(tag, t, line)
        if tag == 'consumer' or tag == 'writer':
            if line and ':/' + tail + ']' in ANSI.sub('', line):
                selected[0] = True
    end = time.monotonic() + 30
    while time.monotonic() < end and not selected[0]:
        c.send('gatt.select-attribute %s\nversion\n' % path)   # `version` prints a line: the prompt before it shows
        wait_for(q, lambda tag, t, line: selected[0], 1.5, watch)
    return path if selected[0] else None


def guest_log_tail(n=25):
    """bluetoothd's last lines (without the lab's usual noise)."""
    try:
        lines = open('/xfer/log/bluetoothd.log', errors='replace').readlines()
    except OSError:
        return ''
    noise = ('No matching connection', 'Adv Monitor', 'Failed to set privacy', 'sap', 'Battery Provider')
    return ''.join([l for l in lines if not any(x in l for x in noise)][-n:])


PIDX = int(PERIPH[3:])
SETTLE = 0.5   # notify --until waits this long after the marker before it reports (JobReducer.settleTime)


def notify_run(name, rnd, periph, q, addr, dev, central, pids):
    rec, out = os.path.join(WORK, 'rec-%s-%d.jsonl' % (name, rnd)), os.path.join(WORK, 'msg-%s-%d.bin' % (name, rnd))
    for f in (rec, out):
        if os.path.exists(f):
            os.remove(f)
    link_down(dev)
    if not discover(dev):
        return dict(error='hci0 did not find the peripheral within 30 s')
    argv, env = consumer_argv(name, addr, rec, out)
    r = dict(consumer=name, round=rnd)
    state = dict(values=0, eom=None, first_value=None, lines=[], sent=None, subscribed=None, first=None, periph=[])
    cap = capture_start(name) if CAPTURE else None
    c = Proc('consumer', argv, q, env=env, stdin=(name == 'bluetoothctl'))
    pids = dict(pids, consumer=c.pid, btmon=cap and cap[0].pid)
    t_start = time.monotonic()
    path_re = None
    cpath = [None]

    def on_line(tag, t, line):
        if tag == 'peripheral':
            e = periph_event(line)
            state['periph'].append(e.get('event'))
            if e.get('event') == 'subscribed' and state['subscribed'] is None:
                state['subscribed'] = (t, snapshot(pids))
            elif e.get('event') == 'first' and state['first'] is None:
                state['first'] = (t, snapshot(pids))
                # the path bluetoothd says this link's characteristic uses, while the consumer is subscribed
                cpath[0] = chrc_path(dev, NOTIFY_UUID)
                if cpath[0]:
                    r['notify_acquired'] = bool(prop(cpath[0], CHRC_I, 'NotifyAcquired', False))
                    r['notifying'] = bool(prop(cpath[0], CHRC_I, 'Notifying', False))
                    r['mtu'] = int(prop(cpath[0], CHRC_I, 'MTU', 0) or 0)
            elif e.get('event') == 'sent':
                state['sent'] = e
            return
        if line is None:
            state['exited'] = t
            return
        if name == 'bluetoothctl':
            l = ANSI.sub('', line)
            state['lines'] = (state['lines'] + [l])[-40:]
            if path_re and path_re.search(l):
                state['values'] += 1
                state['first_value'] = state['first_value'] or t
            elif state['eom'] is None and state['values'] and re.search(r'(^|[#>])\s*45 4f 4d\s', l):
                state['eom'] = (t, snapshot(pids))
                state['eom_values'] = state['values']
        else:
            state['lines'] = (state['lines'] + [line])[-40:]
            ev = periph_event(line)
            if state['eom'] is None and ev.get('event') in ('message', 'eom'):
                state['eom'] = (t, snapshot(pids))
                state['end'] = ev

    sampler = Sampler(PIDX, c.pid)
    rc = None
    try:
        if name == 'bluetoothctl':
            path = bluetoothctl_prepare(c, q, addr, dev, central, NOTIFY_UUID, on_line)
            if not path:
                return dict(r, error='bluetoothctl: no ServicesResolved within 60 s, or the attribute not selected within 30 s',
                            tail=state['lines'][-25:])
            path_re = re.compile(re.escape(path) + r' Value:')
            c.send('gatt.notify on\n')
        limit, end, asked = 120 + COUNT / 20.0, time.monotonic() + 120 + COUNT / 20.0, 0
        while time.monotonic() < end and state['eom'] is None and 'exited' not in state:
            wait_for(q, lambda tag, t, line: state['eom'] is not None or (tag == 'consumer' and line is None), 1.0, on_line)
            # the stream is sent, the link has been still for 3 s, the consumer has not seen the end: it lost the
            # marker (or more); the peripheral sends it again (at most 5 times)
            if state['sent'] and state['eom'] is None and time.monotonic() - sampler.moved > 3 and asked < 5:
                periph.proc.send('eom\n')
                asked += 1
        r['eom_resent'] = asked
        if state['eom'] is None:
            r['error'] = ('%s ended before the end of the stream' % name) if 'exited' in state else ('no EOM within %.0f s' % limit)
            r['tail'] = state['lines'][-25:]
            r['bluetoothd_log'] = guest_log_tail()
        if name == 'bluetoothctl':
            c.send('gatt.notify off\n')
            time.sleep(0.5)
            c.send('disconnect %s\nquit\n' % addr)
        rc = c.end(60)
        wait_for(q, lambda tag, t, line: False, 0.3, on_line)   # the lines still queued
    finally:
        sampler.stop()
        if cap:
            capture_stop(cap[0])
        if c.p.poll() is None:   # a run that ended early: its client goes too
            c.send('quit\n')
            c.end(10)
    r['exit'] = rc
    r['stderr'] = c.stderr()[-600:]
    r['periph_events'] = state['periph']
    if state['sent']:
        r['sent'] = state['sent']['count']
        r['send_seconds'] = state['sent']['last'] - state['sent']['first']
    if state['eom'] and state['first']:
        t0, c0 = state['first']
        t1, c1 = state['eom']
        if name.startswith('bleexplr'):
            # its message line comes once the marker is SETTLE s old: its CPU as the marker came, sampled
            c1 = dict(c1, consumer=sampler.cpu_at(t1 - SETTLE))
            t1 -= SETTLE
        r['window'] = t1 - t0
        r['cpu'] = {k: (c1.get(k) - c0[k]) if c0.get(k) is not None and c1.get(k) is not None else None for k in c0}
        r['consumer_detail'] = sampler.detail_between(t0, t1)
        # the link: L2CAP frames into hci0 from the subscription to the end the consumer saw; every notification
        # sent went through them (Bumble's link loses nothing: BENCH_CAPTURE=1 counts them from a btmon capture)
        r['link_frames'], r['link_seconds'] = sampler.span(1, state['subscribed'][0] if state['subscribed'] else t0,
                                                           state['eom'][0])
    if cap:
        r['link'] = carried(cap[1], 0, ACL_RX, NOTIFY)          # into the central's host (hci0)
        r['link_sent'] = carried(cap[1], PIDX, ACL_TX, NOTIFY)  # out of the peripheral's host
        os.remove(cap[1])
    if name.startswith('bleexplr') and state.get('end'):
        e = state['end']
        r['received'] = int(e.get('chunks', 0))
        r['seconds'] = float(e.get('seconds', 0))
        r['path_said'] = 'AcquireNotify' if 'notifications through a socket (AcquireNotify)' in r['stderr'] else 'StartNotify'
        try:
            if name == 'bleexplr-norecord':
                raise FileNotFoundError('no recording asked for')
            with open(rec) as f:
                lines = [json.loads(l) for l in f if l.strip()]
            notes = [l for l in lines if l.get('type') == 'notification']
            r['recorded'] = sum(1 for l in notes if l.get('hex') != b'EOM'.hex())   # the data; the marker apart
            r['recorded_markers'] = len(notes) - r['recorded']
            r['recorded_acquired'] = sum(1 for l in lines if l.get('type') == 'notify-acquired')
        except (OSError, ValueError) as e:
            r['recorded'] = None
            r['record_error'] = str(e)
    elif name.startswith('bleak') and state.get('end'):
        e = state['end']
        r['received'] = int(e['count'])
        r['seconds'] = (e['last'] - e['first']) if e.get('first') else 0.0
        r['path_said'] = 'AcquireNotify' if name == 'bleak-acquire' else 'StartNotify'
    elif name == 'bluetoothctl' and state['eom']:
        r['received'] = state['eom_values'] - 1
        r['seconds'] = state['eom'][0] - state['first_value'] if state['first_value'] else 0.0
        r['path_said'] = 'StartNotify'
    r['total_seconds'] = time.monotonic() - t_start
    link_down(dev)
    return r


# ------------------------------------------------------------------ one write run
def bleexplr_can_write_file():
    p = subprocess.run([BLEEXPLR, 'write', '--help'], capture_output=True, text=True, timeout=30,
                       env=dict(CHILD_ENV, LD_LIBRARY_PATH=BLEEXPLR_LIB))
    return '--file' in (p.stdout + p.stderr)


def write_run(name, rnd, periph, q, addr, dev, central, pids, count=None):
    """One writer's run. bleexplr says nothing before its first write: its CPU is counted from the 20 ms in
    which hci0 first sent 10 ACL frames or more (a write of 510 bytes is 20 of 27 bytes; connecting and
    discovering send a few)."""
    N = count or COUNT
    link_down(dev)
    if not discover(dev):
        return dict(error='hci0 did not find the peripheral within 30 s')
    r = dict(consumer=name, round=rnd)
    periph.proc.send('reset\n')
    state = dict(start=None, done=None, attempts=0, failures=0, lines=[])
    chunks = [struct.pack('<I', i) + bytes((i + k) & 0x3F for k in range(SIZE - 4)) for i in range(N)]
    env, argv, stdin = {}, None, False
    if name == 'bleak':
        argv, env, stdin = [BLEAK_PY, '-u', os.path.join(HERE, 'link-bleak.py'), 'write', addr, WRITE_UUID,
                            '--count', str(N), '--size', str(SIZE)], {'PYTHONPATH': BLEAK_PATH}, True
    elif name.startswith('bluetoothctl'):
        argv, stdin = ['stdbuf', '-oL', 'bluetoothctl'], True
    elif name.startswith('bleexplr'):
        if not bleexplr_can_write_file():
            return dict(r, error='not run: this bleexplr has no `write --file` (streamed write), see the report')
        data = os.path.join(WORK, 'write-data.bin')
        with open(data, 'wb') as f:
            f.write(b''.join(chunks))
        argv = [BLEEXPLR, '--adapter', 'hci0', 'write', addr, WRITE_UUID, '--file', data, '--type', 'command',
                '--framing', 'plain', '--json']
        env = dict({'LD_LIBRARY_PATH': BLEEXPLR_LIB}, **({'BLEEXPLR_WRITE': 'value'} if name == 'bleexplr-value' else {}))
    cap = capture_start(name) if CAPTURE else None
    c = Proc('writer', argv, q, env=env, stdin=stdin)
    pids = dict(pids, consumer=c.pid, btmon=cap and cap[0].pid)
    t_begin = time.monotonic()

    def on_line(tag, t, line):
        if tag == 'peripheral':
            state.setdefault('periph', []).append(periph_event(line).get('event'))
        if tag == 'peripheral' and name.startswith('bleexplr') and state['start'] is None \
                and periph_event(line).get('event') == 'first-write':
            state['start'] = (t, snapshot(pids))   # bleexplr says nothing before its first write: the first arrival
        if tag != 'writer' or line is None:
            if tag == 'writer':
                state['exited'] = t
            return
        l = ANSI.sub('', line)
        state['lines'] = (state['lines'] + [l])[-40:]
        ev = periph_event(l)
        if ev.get('event') == 'start' and state['start'] is None:
            state['start'] = (t, snapshot(pids))
        elif ev.get('event') in ('written', 'stream-written'):
            state['done'] = (t, snapshot(pids))
            state['written'] = ev
        elif 'Attempting to write' in l:
            state['attempts'] += 1
            state['fd_lines'] = state.get('fd_lines', 0) + ('Attempting to write fd' in l)
            if state['attempts'] == N + 1 and state['done'] is None:
                state['done'] = (t, snapshot(pids))
        elif 'Failed to write' in l:
            state['failures'] += 1

    feeder, rc, rep = None, None, {}
    sampler = Sampler(PIDX, c.pid, every=1)
    try:
        if name.startswith('bluetoothctl'):
            path = bluetoothctl_prepare(c, q, addr, dev, central, WRITE_UUID, on_line)
            if not path:
                return dict(r, error='bluetoothctl: no ServicesResolved within 60 s, or the attribute not selected within 30 s',
                            tail=state['lines'][-25:])
            if name == 'bluetoothctl-acquire':
                c.send('gatt.acquire-write\n')
                wait_for(q, lambda tag, t, line: bool(line) and 'AcquireWrite success' in ANSI.sub('', line), 20, on_line)
            lines = ['gatt.write "%s"\n' % ' '.join('0x%02x' % b for b in ch) for ch in chunks]
            lines.append('gatt.write "0x45 0x4f 0x4d"\n')
            state['start'] = (time.monotonic(), snapshot(pids))

            def feed():
                for l in lines:
                    c.send(l)
            feeder = threading.Thread(target=feed, daemon=True)
            feeder.start()
        limit = 120 + N / 5.0
        wait_for(q, lambda tag, t, line: state['done'] is not None or (tag == 'writer' and line is None), limit, on_line)
        # the arrivals: until the peripheral has the EOM, or nothing more came for 3 s
        last, still, end = -1, time.monotonic(), time.monotonic() + 60 + N / 5.0
        while time.monotonic() < end:
            periph.proc.send('writes\n')
            got = wait_for(q, lambda tag, t, line: tag == 'peripheral' and periph_event(line).get('event') == 'writes', 5, on_line)
            rep = periph_event(got[2]) if got else rep
            if rep.get('eom') or time.monotonic() - still > 3:
                break
            if rep.get('count', 0) != last:
                last, still = rep.get('count', 0), time.monotonic()
            time.sleep(0.5)
        t_arrived = time.monotonic()
        arrived_snap = snapshot(pids)
        if name.startswith('bluetoothctl'):
            if feeder:
                feeder.join(30)
            c.send('disconnect %s\nquit\n' % addr)
        elif name == 'bleak':
            c.send('done\n')   # it disconnects once the peripheral has what it will get
        rc = c.end(60)
        wait_for(q, lambda tag, t, line: False, 0.3, on_line)
    finally:
        sampler.stop()
        if cap:
            capture_stop(cap[0])
        if c.p.poll() is None:
            c.send('quit\n')
            c.end(10)
    r['exit'] = rc
    r['periph_events'] = state.get('periph', [])
    if not rep.get('count'):
        r['tail'] = state['lines'][-25:]
        r['bluetoothd_log'] = guest_log_tail()
    r['stderr'] = c.stderr()[-600:]
    r['arrived'] = rep.get('count')
    r['arrived_seconds'] = (rep['last'] - rep['first']) if rep.get('first') and rep.get('last') else None
    r['arrived_path'] = rep.get('path')
    r['eom_arrived'] = rep.get('eom')
    r['bytes'] = rep.get('bytes')
    if name == 'bleak' and state.get('written'):
        w = state['written']
        r['sent'], r['errors'] = w['count'], w['errors']
        r['send_seconds'] = w['last'] - w['first'] if w.get('first') else None
        r['path_said'] = 'WriteValue'
    elif name.startswith('bluetoothctl'):
        r['sent'] = min(state['attempts'], N)
        r['errors'] = state['failures']
        r['path_said'] = 'AcquireWrite' if name == 'bluetoothctl-acquire' else 'WriteValue'
        r['fd_lines'] = state.get('fd_lines', 0)
    elif name.startswith('bleexplr') and state.get('written'):
        w = state['written']
        t_burst = sampler.burst(3, 10)
        if t_burst is not None and state['start'] and t_burst < state['start'][0]:
            state['start'] = (t_burst, dict(state['start'][1], consumer=sampler.cpu_at(t_burst)))
            r['start_from'] = 'hci0 burst'
        size = int(w.get('chunkSize') or SIZE)
        r['sent'] = -(-int(w.get('bytes', 0)) // size)   # the file's writes (its EOM with --framing plain not counted)
        r['chunks_said'] = w.get('chunks')
        r['send_seconds'] = float(w.get('seconds', 0)) or None
        r['queued_seconds'] = w.get('queuedSeconds')
        r['chunk'] = w.get('chunkSize')
        r['path_said'] = w.get('path')
    elif name.startswith('bleexplr'):
        # it ended without its stream-written line: say why, count what it said it wrote (its EOM apart)
        m = re.search(r'after (\d+) of (\d+) writes', r['stderr'])
        r['lines'] = state['lines'][-5:]
        if m:
            r['sent'] = int(m.group(1)) - 1
            r['ended'] = r['stderr'].strip().splitlines()[-1][:200]
            r['path_said'] = 'AcquireWrite' if 'AcquireWrite' in r['stderr'] else 'WriteValue'
            if state.get('exited'):
                state['done'] = (state['exited'], dict(arrived_snap, consumer=sampler.cpu_at(state['exited'])))
            t_burst = sampler.burst(3, 10)
            if t_burst is not None and state['start'] and t_burst < state['start'][0]:
                state['start'] = (t_burst, dict(state['start'][1], consumer=sampler.cpu_at(t_burst)))
                r['start_from'] = 'hci0 burst'
    if state['start'] and state['done']:
        t0, c0 = state['start']
        t1, c1 = state['done']
        r['writer_window'] = t1 - t0
        r['window'] = t_arrived - t0   # bluetoothd, dbus-daemon and Bumble work until the last write arrived
        r['send_seconds'] = r.get('send_seconds') or (t1 - t0)
        r['cpu'] = {'consumer': (c1.get('consumer') - c0['consumer']) if c1.get('consumer') is not None and c0.get('consumer') is not None else None}
        for k in ('bluetoothd', 'dbus', 'bumble', 'btmon'):
            if c0.get(k) is not None and arrived_snap.get(k) is not None:
                r['cpu'][k] = arrived_snap[k] - c0[k]
        # the link: Write Commands into the peripheral's adapter (one L2CAP frame each), the EOM's too
        r['link_frames'], r['link_seconds'] = sampler.span(2, t0, t_arrived)
    if cap:
        r['link'] = carried(cap[1], PIDX, ACL_RX, WRITE_CMD)   # into the peripheral's host
        r['link_sent'] = carried(cap[1], 0, ACL_TX, WRITE_CMD)  # out of the central's host (hci0)
        os.remove(cap[1])
    r['total_seconds'] = time.monotonic() - t_begin
    link_down(dev)
    return r


def main():
    if SUITE not in ('notify', 'write'):
        sys.exit(__doc__)
    os.makedirs(WORK, exist_ok=True)
    default = 'bleexplr-acquire,bleexplr-start,bleexplr-norecord,bleak-acquire,bleak-start,bluetoothctl' if SUITE == 'notify' \
        else 'bleexplr,bleexplr-value,bleak,bluetoothctl,bluetoothctl-acquire'
    consumers = opt('--consumers', default).split(',')
    q = queue.Queue()
    periph = Peripheral(q)
    ready = wait_for(q, lambda tag, t, line: tag == 'peripheral' and (line is None or periph_event(line).get('event') in ('ready', 'error')), 90)
    if not ready or periph_event(ready[2]).get('event') != 'ready':
        emit('error', what='the peripheral did not come up: %s %s' % (ready and ready[2], periph.proc.stderr()[-800:]))
        periph.proc.end(5)
        sys.exit(1)
    addr = str(prop('/org/bluez/' + PERIPH, ADAPTER_I, 'Address'))
    central = str(prop('/org/bluez/hci0', ADAPTER_I, 'Address'))
    dev = '/org/bluez/hci0/dev_' + addr.replace(':', '_')
    pids = {'bluetoothd': pid_of('bluetoothd'), 'dbus': pid_of('dbus-daemon'), 'bumble': bumble_pid(),
            'sender': periph.proc.pid, 'driver': os.getpid()}
    acl = {'hci0': hci_stats(0)[0], PERIPH: hci_stats(int(PERIPH[3:]))[0]}
    # what the lab costs with no link up: its background (Bumble's controllers advertising for the fixtures)
    idle0, t_idle = snapshot(pids), time.monotonic()
    time.sleep(5)
    idle1, t_idle = snapshot(pids), time.monotonic() - t_idle
    idle = {k: round((idle1[k] - idle0[k]) / t_idle, 3) for k in idle0 if idle0.get(k) is not None and idle1.get(k) is not None}
    emit('info', suite=SUITE, peripheral=addr, adapter=PERIPH, central=central, count=COUNT, size=SIZE, rounds=ROUNDS,
         consumers=consumers, pids=pids, acl_mtu=acl, bleexplr=BLEEXPLR, idle=idle,
         bluetoothctl=subprocess.run(['bluetoothctl', '--version'], capture_output=True, text=True).stdout.strip(),
         load=open('/proc/loadavg').read().strip(), nproc=os.cpu_count())
    run = notify_run if SUITE == 'notify' else write_run
    try:
        for rnd in range(ROUNDS):
            order = consumers if rnd % 2 == 0 else consumers[::-1]
            for name in order:
                try:
                    r = run(name, rnd + 1, periph, q, addr, dev, central, pids)
                except Exception as e:   # one run failing is reported, the others go on
                    r = dict(consumer=name, round=rnd + 1, error='%s: %s' % (type(e).__name__, e))
                r.setdefault('consumer', name)
                r.setdefault('round', rnd + 1)
                emit('run', **r)
                while True:   # events of that run still queued (the peripheral's "unsubscribed")
                    try:
                        q.get_nowait()
                    except queue.Empty:
                        break
    finally:
        periph.proc.send('quit\n')
        periph.proc.end(10)


main()
