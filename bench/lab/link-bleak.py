"""bleak as a peer in `make bench-link`, INSIDE the lab's guest, on its system bus (bleak pinned in
bench/lab/link-requirements.txt, shipped into the guest by bench/lab/link-speed).

    python3 link-bleak.py notify ADDRESS UUID acquire|start [--adapter hci0]
    python3 link-bleak.py write ADDRESS UUID --count N --size BYTES [--adapter hci0]

notify: BleakClient.start_notify on UUID, through AcquireNotify (bluez={"use_start_notify": False})
or StartNotify (bleak's default); the callback counts what arrives until the first value b"EOM"
and prints {"event": "eom", "count": N, "first": t, "last": t} (CLOCK_MONOTONIC), then stops.
write: write_gatt_char(UUID, chunk, response=False) N times, chunks of BYTES (a sequence number,
then filler), then b"EOM"; prints {"event": "start"} just before the first and {"event": "written",
"count": N, "errors": E, "first": t, "last": t} after the marker, and disconnects when a line comes on
stdin (bluetoothd may still be sending what it took: a disconnect at once would drop it). bleak sends a Write Command as
WriteValue(type=command) over D-Bus; it has no AcquireWrite path.
Every line goes to stdout, flushed; exit status 0 when it got to the end."""
import asyncio, json, struct, sys, time

from bleak import BleakClient, BleakScanner


def say(event, **kw):
    print(json.dumps(dict(event=event, t=round(time.monotonic(), 6), **kw)), flush=True)


def opt(args, name, default):
    return args[args.index(name) + 1] if name in args else default


async def connect(address, adapter):
    dev = await BleakScanner.find_device_by_address(address, timeout=30.0, bluez={'adapter': adapter})
    if dev is None:
        say('error', what='%s not found by a 30 s scan on %s' % (address, adapter))
        sys.exit(1)
    client = BleakClient(dev, timeout=30.0, bluez={'adapter': adapter})
    await client.connect()
    say('connected')
    return client


async def notify(address, uuid, path, adapter):
    client = await connect(address, adapter)
    count, first, last = 0, None, None
    done = asyncio.get_running_loop().create_future()

    def got(_char, data):
        nonlocal count, first, last
        if done.done():
            return
        now = time.monotonic()
        if data == b'EOM':
            done.set_result(now)
            return
        count += 1
        first = first or now
        last = now
    try:
        await client.start_notify(uuid, got, bluez={'use_start_notify': path == 'start'})
        say('subscribed', path=path)
        await asyncio.wait_for(done, timeout=600)
        say('eom', count=count, first=first, last=last)
        await client.stop_notify(uuid)
    finally:
        await client.disconnect()


async def write(address, uuid, count, size, adapter):
    client = await connect(address, adapter)
    errors, first = 0, None
    try:
        char = client.services.get_characteristic(uuid)
        chunks = [struct.pack('<I', i) + bytes((i + k) & 0x3F for k in range(size - 4)) for i in range(count)]
        say('start', size=size)
        for c in chunks:
            try:
                await client.write_gatt_char(char, c, response=False)
            except Exception as e:   # an error is counted, the loop goes on (as a streaming app would)
                errors += 1
                if errors == 1:
                    say('write-error', what=str(e))
            first = first or time.monotonic()
        last = time.monotonic()
        await client.write_gatt_char(char, b'EOM', response=False)
        say('written', count=count - errors, errors=errors, first=first, last=last)
        # bluetoothd may still hold writes for the link: a disconnect now would drop them; the harness says when
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    finally:
        await client.disconnect()


def main():
    a = sys.argv[1:]
    adapter = opt(a, '--adapter', 'hci0')
    if len(a) >= 4 and a[0] == 'notify':
        asyncio.run(notify(a[1], a[2], a[3], adapter))
    elif len(a) >= 3 and a[0] == 'write':
        asyncio.run(write(a[1], a[2], int(opt(a, '--count', '500')), int(opt(a, '--size', '512')), adapter))
    else:
        sys.exit(__doc__)


main()
