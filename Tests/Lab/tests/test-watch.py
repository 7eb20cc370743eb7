#!/usr/bin/python3
"""`bleexplr watch` against the lab's bluetoothd: every press of 'Lab iTag' reaches a local HTTP server
(Tests/tools/http_sink.py), once each and in order, across two answers of 500 and a link the peripheral
drops; the kintone-like body's Japanese arrives intact; the token goes out in its header but is never
printed or recorded; SIGTERM ends the watcher with status 0.

Presses are spaced (each waits for its "#N queued"): bluetoothd may fold two notifications that arrive
in one main-loop turn into one PropertiesChanged, which is the central's business, not watch's."""
import os, shutil, signal, subprocess, sys, tempfile, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *

SINK = os.path.join(ROOT, 'Tests', 'tools', 'http_sink.py')
FAIL_FIRST = 2
JAPANESE = '会議室A：ホワイトボードマーカー（黒）'
BODY = ('{"app": 7, "record": {"アイテム": {"value": "%s"}, "数量": {"value": "2"}, '
        '"押下": {"value": "{{hex}}"}, "seq": {"value": "{{seq}}"}}}' % JAPANESE)


def body_of(req):
    try:
        return json.loads(req['body'])
    except ValueError:
        fail('the sink got a body that is not JSON: %r' % req['body'])


def seq_of(req):
    return int(body_of(req)['record']['seq']['value'])


def test():
    check(os.access(bleexplr_bin(), os.X_OK), 'bleexplr binary at %s (build it first)' % bleexplr_bin())
    tmp = tempfile.mkdtemp(prefix='bleexplr-lab-watch-')
    sink = watch = None
    try:
        # The iTag's address (hci0 keeps the device object for a while, so watch finds it at once).
        c, fx = Central(), Fixtures()
        c.scan()
        dev = c.find_name(ITAG)
        address = str(c.devices[dev]['Address'])
        c.stop_scan()
        log('Lab iTag is', address)

        sink_log, port_file = os.path.join(tmp, 'sink.jsonl'), os.path.join(tmp, 'sink.port')
        sink = subprocess.Popen(['/usr/bin/python3', SINK, '--log', sink_log, '--port-file', port_file,
                                 '--fail-first', str(FAIL_FIRST)], stdin=subprocess.DEVNULL)
        check(pump(10, lambda: os.path.exists(port_file)), 'the HTTP sink is listening')
        port = int(open(port_file).read())

        def requests():
            if not os.path.exists(sink_log):
                return []
            with open(sink_log, encoding='utf-8') as f:
                return [json.loads(l) for l in f if l.strip()]

        token = 'tok-%d-lab-s3cret' % os.getpid()
        queue, record = os.path.join(tmp, 'queue.jsonl'), os.path.join(tmp, 'record.jsonl')
        watch = Background.bleexplr(
            tmp, '--record', record, 'watch', address, 'FFE1',
            '--post', 'http://127.0.0.1:%d/k/v1/record.json' % port,
            '--header', 'X-Cybozu-API-Token: ${KINTONE_TOKEN}', '--body', BODY,
            '--queue', queue, '--json', name='watch', env={'KINTONE_TOKEN': token})

        def said(event, pred=lambda m: True):
            return [e for e in watch.events() if e.get('event') == event and pred(e.get('message', ''))]

        def subscriptions():
            return len(said('subscribed'))

        def queued(n):
            return bool(said('hook', lambda m: m.startswith('#%d queued' % n)))

        t0 = time.monotonic()
        watch.wait_for('watch connected and subscribed to FFE1', lambda: subscriptions() >= 1, 45)
        log('subscribed %.1fs after start' % (time.monotonic() - t0))
        check(pump(10, lambda: bool(fx.State()['itag']['key_notifying'])), 'the iTag sees the FFE1 subscription')

        n = 0
        for _ in range(3):
            n += 1
            check(bool(fx.Press()), 'press %d sent as a notification' % n)
            watch.wait_for('press %d heard and queued as #%d' % (n, n), lambda: queued(n), 10)

        # The peripheral ends the link (an iTag walking out of range / powering down).
        check(int(fx.Disconnect('itag')) == 1, 'the iTag dropped its link from the peripheral side')
        watch.wait_for('watch saw the link go', lambda: bool(said('link', lambda m: m.startswith('link lost'))), 15)
        check(said('link', lambda m: m == 'link lost: remote device ended the connection'),
              'watch says the peripheral ended it (%s)' % said('link', lambda m: m.startswith('link lost')))
        t_drop = time.monotonic()
        watch.wait_for('watch reconnected and subscribed again', lambda: subscriptions() >= 2, 45)
        log('back %.1fs after the drop' % (time.monotonic() - t_drop))
        check(pump(10, lambda: bool(fx.State()['itag']['key_notifying'])), 'the iTag sees the new subscription')
        for _ in range(2):
            n += 1
            check(bool(fx.Press()), 'press %d (after the reconnection) sent as a notification' % n)
            watch.wait_for('press %d heard and queued as #%d' % (n, n), lambda: queued(n), 10)

        def delivered():
            return [e['seq'] for e in said('hook', lambda m: ' delivered: HTTP 201' in m)]
        watch.wait_for('all %d events delivered' % n, lambda: len(delivered()) >= n, 30)
        pump(1.5)   # nothing more may arrive (no duplicate deliveries)

        rc = watch.stop(signal.SIGTERM)
        watch.dump()
        check(rc == 0, 'SIGTERM ends watch with status 0 (got %s)' % rc)
        out, err = watch.out(), watch.err()
        check(delivered() == list(range(1, n + 1)), 'watch reports #1..#%d delivered, in order (%s)' % (n, delivered()))
        lost = said('link', lambda m: m.startswith('link lost'))
        check(len(lost) == 1 and 'remote' in lost[0]['message'], 'one link loss, ended by the remote side (%s)'
              % [e['message'] for e in lost])
        check(subscriptions() == 2, 'subscribed exactly twice (%d)' % subscriptions())
        retries = said('hook', lambda m: 'failed: HTTP 500' in m)
        check([e['seq'] for e in retries] == [1] * FAIL_FIRST,
              'the first %d answers (500) were retried, for #1 (%s)' % (FAIL_FIRST, [e['message'] for e in retries]))

        reqs = requests()
        for r in reqs:
            log('  sink #%d %d %s seq=%s' % (r['n'], r['status'], r['path'], seq_of(r)))
        accepted = [seq_of(r) for r in reqs if r['status'] == 201]
        check(accepted == list(range(1, n + 1)), 'the server accepted every press exactly once, in order: seq %s' % accepted)
        check([seq_of(r) for r in reqs if r['status'] == 500] == [1] * FAIL_FIRST, 'the refused requests were #1, twice')
        check(all(r['method'] == 'POST' and r['path'] == '/k/v1/record.json' for r in reqs), 'every request: POST /k/v1/record.json')
        check(all({k.lower(): v for k, v in r['headers'].items()}.get('x-cybozu-api-token') == token for r in reqs),
              'every request carried the token in X-Cybozu-API-Token')
        check(all((r['headers'].get('Content-Type') or r['headers'].get('content-type') or '').startswith('application/json')
                  for r in reqs), 'the JSON body is sent as application/json (%s)' % reqs[0]['headers'])
        bodies = [body_of(r) for r in reqs]
        check(all(b['record']['アイテム']['value'] == JAPANESE and b['record']['数量']['value'] == '2' for b in bodies),
              'the Japanese field names and text arrived intact')
        check(all(b['record']['押下']['value'] == '01' for b in bodies), '{{hex}} is the press value 01')

        with open(record, encoding='utf-8') as f:
            rec = f.read()
        heard = [l for l in rec.splitlines() if '"type":"notification"' in l and '0000ffe1' in l]
        check(len(heard) == n, 'the recording holds the %d notifications (%d)' % (n, len(heard)))
        check('"type":"hook"' in rec, 'the recording holds the hook reports')
        for where, text in (('stdout', out), ('stderr', err), ('the recording', rec)):
            check(token not in text, 'the token appears nowhere in %s' % where)
        with open(queue, encoding='utf-8') as f:
            left = f.read()
        check(left == '{"next":%d}\n' % (n + 1),
              'nothing is owed: the queue file keeps only the next number (%r)' % left)
    finally:
        if watch and watch.rc is None:
            watch.stop(signal.SIGKILL)
        if sink:
            sink.terminate()
            sink.wait(5)
        shutil.rmtree(tmp, ignore_errors=True)


main(test)
