#!/usr/bin/python3
"""A chunked stream from bleexplr to bleexplr: `serve --stream FILE --char UUID` on hci7 sends a
64 KiB file as notifications of (MTU - 3) bytes and then "EOM" once the central subscribes;
`notify --until EOM --output FILE` on hci0 reassembles it. The file arrives identical (sha256);
the throughput both ends measured is printed. Then 16 KiB with `serve --framing seq`: notify
reads the characteristic's user description ("framing seq") and takes the frames apart without
being told; the file arrives identical again."""
import hashlib, json, os, sys, tempfile, threading
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from labkit import *
import importlib.util
_spec = importlib.util.spec_from_file_location('serve_common', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'test-serve.py'))
common = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(common)

CHAR = '626c6578-0000-4000-8000-00000000a001'


def stream(addr, d, size, framing):
    src, dst = os.path.join(d, 'in-%s.bin' % framing), os.path.join(d, 'out-%s.bin' % framing)
    payload = bytes((i * 131 + (i >> 8) * 7) & 0xFF for i in range(size))
    with open(src, 'wb') as f:
        f.write(payload)
    srv = common.Server('--stream', src, '--char', CHAR, *(['--framing', 'seq'] if framing == 'seq' else []))
    try:
        start, done, p = common.notify_stream(srv, addr, CHAR, dst)
        check(start.get('framing') == framing, 'serve streamed with framing %s (%s)' % (framing, start))
        check(p is not None and p.returncode == 0, 'notify --until EOM exits 0 (%s)' % (p and p.stderr))
        msg = common.jsonl(p)[-1]
        check(msg.get('framing') == framing, 'notify read the frames as %s without being told (%s)' % (framing, msg))
        got = open(dst, 'rb').read()
        check(len(got) == len(payload), 'received %d of %d bytes' % (len(got), len(payload)))
        check(hashlib.sha256(got).hexdigest() == hashlib.sha256(payload).hexdigest(), 'sha256 matches')
        log('THROUGHPUT %s sender: %s bytes in %s chunks of %s, %s s, %s kbit/s' % (
            framing, done['bytes'], done['chunks'], start['chunk'], done['seconds'], done['kbitPerSecond']))
        log('THROUGHPUT %s receiver: %s bytes in %s notifications, %s s, %s kbit/s, %s reordered' % (
            framing, msg['bytes'], msg['chunks'], msg['seconds'], msg['kbitPerSecond'], msg.get('reordered', '-')))
    finally:
        rc = srv.stop()
    check(rc == 0, 'serve exits 0 on SIGINT')


def test():
    check(os.access(common.BIN, os.X_OK), 'bleexplr binary at %s (build it first)' % common.BIN)
    addr = common.adapter_address('hci7')
    d = tempfile.mkdtemp(prefix='bx-stream-')
    stream(addr, d, 64 * 1024, 'plain')
    stream(addr, d, 16 * 1024, 'seq')


if __name__ == '__main__':
    main(test)
