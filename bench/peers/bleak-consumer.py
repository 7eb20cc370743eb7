"""bleak as a peer in the storm (make bench-peers): a BleakScanner on the BlueZ backend
(active scan) whose detection callback keeps each device's latest RSSI and manufacturer
data, as an application would. When the device named BENCH-END is detected it prints
  BENCH-END count=<callbacks> t_end=<epoch s> cpu_s=<CPU s> devices=<known>
and keeps scanning until it is terminated. DBUS_SYSTEM_BUS_ADDRESS names the bus."""
import asyncio
import resource
import time

from bleak import BleakScanner


async def main():
    seen = {}
    count = 0
    marker = asyncio.get_running_loop().create_future()

    def detected(device, adv):
        nonlocal count
        seen[device.address] = (adv.rssi, adv.manufacturer_data)
        if adv.local_name == "BENCH-END":
            if not marker.done():
                marker.set_result(time.time())
            return
        count += 1

    async with BleakScanner(detection_callback=detected):
        t_end = await marker
        ru = resource.getrusage(resource.RUSAGE_SELF)
        print(f"BENCH-END count={count} t_end={t_end:.6f} cpu_s={ru.ru_utime + ru.ru_stime:.4f} devices={len(seen)}",
              flush=True)
        await asyncio.Event().wait()


asyncio.run(main())
