#!/usr/bin/python3
"""bleexplr as the peripheral: `bleexplr serve SPEC` on hci7 and bleexplr as the central on hci0,
two processes on the lab bus. The served device advertises (name, service UUID, manufacturer
data) as discoverable, so that a Transport-only discovery (regular discovery since BlueZ 5.67) sees it, and the central reads, writes (and reads back), and gets a notification; the server
prints each read, write and subscription; SIGINT unregisters cleanly."""
import json, os, queue, signal, subprocess, sys, tempfile, threading, time
import jsonschema
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *

BIN = bleexplr_bin()
SVC = u16('fff0')                                   # 16-bit: the advertisement holds 31 bytes
GREETING = '626c6578-0000-4000-8000-00000000f001'   # read
NOTE = '626c6578-0000-4000-8000-00000000f002'       # read, write
COUNTER = '626c6578-0000-4000-8000-00000000f003'    # read, notify
MOTOR = '626c6578-0000-4000-8000-00000000f004'      # read: sint16, exponent -2, degrees Celsius (0x2904)
NAME = 'bx Serve'
SPEC = {
    'name': NAME,
    'advertise': {'serviceUUIDs': ['FFF0'], 'manufacturerData': {'ffff': 'b1e0'}},
    'services': [{'uuid': 'FFF0', 'characteristics': [
        {'uuid': GREETING, 'properties': ['read'], 'value': {'text': 'hello'},
         'descriptors': [{'uuid': '2901', 'value': {'text': 'Greeting'}}]},
        {'uuid': NOTE, 'properties': ['read', 'write', 'write-without-response'], 'value': '00'},
        {'uuid': COUNTER, 'properties': ['read', 'notify'], 'value': '00'},
        {'uuid': MOTOR, 'properties': ['read'], 'value': '2909',
         'descriptors': [{'uuid': '2901', 'value': {'text': 'Motor temperature'}},
                         {'uuid': '2904', 'value': '0efe2f27010000'}]},
    ]}],
}


def serve_line_validator():
    with open(os.path.join(ROOT, 'docs', 'output.schema.json'), encoding='utf-8') as f:
        schema = json.load(f)
    schema.pop('oneOf')
    schema['$ref'] = '#/$defs/serve'
    return jsonschema.Draft202012Validator(schema)


SERVE_LINE = serve_line_validator()


class Server:
    """`bleexplr serve` in the background; its JSON lines arrive on a queue."""

    def __init__(self, *args):
        cmd = [BIN, '--bus', bus_address(), '--adapter', 'hci7', 'serve', '--json'] + list(args)
        log('$', ' '.join(cmd[1:]))
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        self.seen = []
        self.invalid = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: [log('  serve stderr |', l.rstrip()) for l in self.p.stderr], daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            log('  serve |', line.rstrip())
            try:
                obj = json.loads(line)
            except ValueError:
                obj = {'event': 'garbage', 'line': line}
            # Every line serve prints is one docs/output.schema.json describes.
            errors = [e.message for e in SERVE_LINE.iter_errors(obj)]
            if errors:
                self.invalid.append((line.rstrip(), errors))
            self.lines.put(obj)

    def wait(self, pred, seconds, what):
        end = time.monotonic() + seconds
        for e in self.seen:
            if pred(e):
                return e
        while time.monotonic() < end:
            try:
                e = self.lines.get(timeout=max(0.05, end - time.monotonic()))
            except queue.Empty:
                break
            self.seen.append(e)
            if pred(e):
                return e
        fail('serve: %s (within %ds)' % (what, seconds))

    def send(self, line):
        self.p.stdin.write(line + '\n')
        self.p.stdin.flush()

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                fail('serve did not exit within 10 s of SIGINT')
        return self.p.returncode


def notify_stream(srv, addr, char, dst, start_timeout=60):
    """With `srv` (serve --stream) up: `bleexplr notify ADDR CHAR --until EOM --output DST --json`
    subscribes, serve streams to its end; (stream-start, stream-done, notify's process or None)."""
    srv.wait(lambda e: e.get('event') == 'advertising', 30, 'registers')
    out = {}
    th = threading.Thread(target=lambda: out.setdefault('p', bx(
        'notify', addr, char, '--until', 'EOM', '--output', dst, '--json', timeout=600)))
    th.start()
    start = srv.wait(lambda e: e.get('event') == 'stream-start', start_timeout, 'starts streaming when the central subscribes')
    done = srv.wait(lambda e: e.get('event') in ('stream-done', 'stream-stopped'), 600, 'finishes the stream')
    check(done['event'] == 'stream-done', 'the whole file was sent (%s)' % done)
    th.join(120)
    return start, done, out.get('p')


def test():
    check(os.access(BIN, os.X_OK), 'bleexplr binary at %s (build it first)' % BIN)
    addr = adapter_address('hci7')
    log('serving on hci7 =', addr)
    spec = os.path.join(tempfile.mkdtemp(prefix='bx-serve-'), 'spec.json')
    with open(spec, 'w') as f:
        json.dump(SPEC, f)
    srv = Server(spec)
    try:
        srv.wait(lambda e: e.get('event') == 'advertising', 30, 'registers its application and advertisement')

        # A central whose filter is Transport alone (bluetoothctl's `transport le`) does regular discovery on
        # BlueZ >= 5.67: it sees only discoverable advertisers. serve's advert says General Discoverable.
        c = Central()
        c.forget_all()
        c.scan(transport_only=True)
        try:
            c.find(lambda d: str(d.get('Address')) == addr and str(d.get('Name', '')) == NAME, 20,
                   'the served device through a Transport-only discovery')
        finally:
            c.stop_scan()
        c.forget_all()

        p = bx('scan', '--duration', '8', '--json')
        seen = {d['address']: d for d in jsonl(p)}
        check(addr in seen, 'the central hears the served device at %s' % addr)
        d = seen[addr]
        check(d.get('name') == NAME, 'with its name (%r)' % d.get('name'))
        check(SVC in d.get('serviceUUIDs', []), 'its advertised service UUID')
        check(d.get('manufacturerData', {}).get('ffff') == 'b1e0', 'and its manufacturer data')

        p = bx('services', addr, '--json')
        check(p.returncode == 0, 'services exits 0')
        chars = [c['uuid'] for s in jsonl(p) if s['uuid'] == SVC for c in s['characteristics']]
        check(chars == [GREETING, NOTE, COUNTER, MOTOR], 'the GATT tree is the spec (%s)' % chars)
        named = {c['uuid']: c for s in jsonl(p) if s['uuid'] == SVC for c in s['characteristics']}
        check(named[GREETING].get('name') == 'Greeting', 'services names a characteristic by its 0x2901 (%r)' % named[GREETING].get('name'))
        check((named[MOTOR].get('presentationFormat') or {}).get('unit') == 'degree Celsius',
              'and gives its 0x2904 format (%r)' % named[MOTOR].get('presentationFormat'))

        # The same value from every door: read names it and formats it as the app does.
        p = bx('read', addr, MOTOR, '--json')
        v = jsonl(p)[0] if p.returncode == 0 else {}
        check(v.get('name') == 'Motor temperature' and v.get('decoded') == '23.45 °C'
              and (v.get('value') or {}).get('value') == 23.45,
              'read shows the 0x2901 name and the 0x2904-formatted value (%r)' % v)

        p = bx('read', addr, GREETING, '--json')
        check(p.returncode == 0 and jsonl(p)[0]['hex'] == b'hello'.hex(), 'read returns the initial value')
        e = srv.wait(lambda e: e.get('event') == 'read' and e.get('uuid') == GREETING, 10, 'prints the read')
        check(e.get('central') == adapter_address('hci0'), 'naming the central (%s)' % e.get('central'))

        p = bx('write', addr, NOTE, '0102ff')
        check(p.returncode == 0, 'write exits 0')
        srv.wait(lambda e: e.get('event') == 'write' and e.get('hex') == '0102ff', 10, 'prints the write')
        p = bx('read', addr, NOTE, '--json')
        check(p.returncode == 0 and jsonl(p)[0]['hex'] == '0102ff', 'the written value reads back (kept)')

        out = {}
        th = threading.Thread(target=lambda: out.setdefault('p', bx('notify', addr, COUNTER, '--count', '2', '--json', timeout=90)))
        th.start()
        srv.wait(lambda e: e.get('event') == 'subscribed' and e.get('uuid') == COUNTER, 45, 'sees the central subscribe')
        srv.send('notify %s 01' % COUNTER)
        time.sleep(0.3)
        srv.send('notify %s "two"' % COUNTER)
        th.join(60)
        p = out.get('p')
        check(p is not None and p.returncode == 0, 'notify --count 2 exits 0')
        check([v['hex'] for v in jsonl(p)] == ['01', b'two'.hex()], 'both notifications arrive in order')
        srv.wait(lambda e: e.get('event') == 'unsubscribed', 15, 'sees the central go')
    finally:
        rc = srv.stop()
    check(rc == 0, 'serve exits 0 on SIGINT (got %s)' % rc)
    check(any(e.get('event') == 'unregistered' for e in list(srv.seen) + list(srv.lines.queue)), 'after unregistering')
    check(not srv.invalid, 'every line serve printed is a serve line of docs/output.schema.json (%s)' % srv.invalid[:3])


if __name__ == '__main__':
    main(test)
