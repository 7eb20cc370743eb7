#!/usr/bin/env python3
"""The peer benchmark (make bench-peers): how much CPU and memory BlueZ clients spend on
a storm of Device1 signals, bleexplr next to its peers, in interleaved rounds.

Each run gets its own dbus-daemon on a private socket, configured as a system bus (type
system, EXTERNAL auth, the system bus's limits, an allow-all policy); `storm` (this
folder) owns org.bluez on it; one consumer runs with DBUS_SYSTEM_BUS_ADDRESS pointing
there. Once the consumer has started discovery, the storm is sent: live (the consumer
runs through it) or backlog (the consumer is stopped while the daemon queues the whole
storm, then continued: its drain rate). The run ends when the consumer reports the
marker device BENCH-END; then it is terminated and reaped.

Figures per run: CPU per signal = the consumer's user+system time (/proc, from just
before the storm to the marker) / signals it delivered; rate = delivered / (marker -
first signal) live, / (marker - SIGCONT) on a backlog; devices it knew; peak RSS
(ru_maxrss, or VmHWM where the driver's own peak hides it). A round runs every consumer once in every mode, back to
back, in the reverse order every other round, so a slow spell of a shared machine falls
on all of them alike; the table gives medians over the rounds, and ratios to the sink
and to bleak from those medians. Figures only: nothing here passes or fails on time.

Stdlib only. bench/peers/run installs what it needs and calls this.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CLK = os.sysconf("SC_CLK_TCK")
RSS_TARGET_MIB = 20.0

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="false"/>
    <allow send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
  </policy>
</busconfig>
"""
# The limits are dbus-daemon's compiled-in system-bus ones (127 MiB queued a connection,
# 512 match rules a connection): a client that adds a rule per device, as bluetoothctl
# does, meets the same refusals as on a stock Debian system bus.


def line_from(pipe, timeout, what):
    """One line from a child's stdout, or an error after `timeout` seconds."""
    import selectors
    sel = selectors.DefaultSelector()
    sel.register(pipe, selectors.EVENT_READ)
    end, buf = time.monotonic() + timeout, b""
    while True:
        left = end - time.monotonic()
        if left <= 0 or not sel.select(left):
            raise RuntimeError(f"no {what} within {timeout:.0f} s")
        ch = os.read(pipe.fileno(), 1)
        if not ch:
            raise RuntimeError(f"end of output before {what}")
        if ch == b"\n":
            return buf.decode(errors="replace")
        buf += ch


def peak_rss_mib(pid):
    """A process's own high-water mark of resident memory (VmHWM), None once it has exited."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def cpu_seconds(pid):
    """utime+stime of a live process, in clock ticks (10 ms: 0.1 µs a signal in a storm of
    100,000). /proc/PID/schedstat would be finer, but this kernel leaves it at zero."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / CLK


class Child:
    """A process this driver started; reaped with wait4 so that its rusage is kept."""

    def __init__(self, argv, **kw):
        self.driver_peak = peak_rss_mib("self") or 0.0
        self.p = subprocess.Popen(argv, **kw)
        self.rusage = None
        self.sampled_peak = 0.0

    def sample_peak(self):
        """Reads VmHWM every 10 ms while the process lives (a thread: the driver waits on
        the storm meanwhile), for consumers smaller than the driver (see one_run)."""
        import threading

        def watch():
            while (v := peak_rss_mib(self.p.pid)) is not None:
                self.sampled_peak = max(self.sampled_peak, v)
                time.sleep(0.01)
        threading.Thread(target=watch, daemon=True).start()

    def running(self):
        if self.rusage is None:
            pid, status, ru = os.wait4(self.p.pid, os.WNOHANG)
            if pid:
                self.rusage, self.status = ru, status
        return self.rusage is None

    def stop(self, sig=signal.SIGTERM, timeout=10.0):
        if self.running():
            os.kill(self.p.pid, sig)
        end = time.monotonic() + timeout
        while self.running() and time.monotonic() < end:
            time.sleep(0.01)
        if self.running():
            os.kill(self.p.pid, signal.SIGKILL)
            _, self.status, self.rusage = os.wait4(self.p.pid, 0)
        return self.rusage


MARKER = re.compile(rb"[^\n]*BENCH-END[^\n]*\n")
BTCTL_RSSI = re.compile(rb"CHG[^\n]*? Device ([0-9A-F:]{17}) RSSI:")


def marker_line(path, tool):
    """The consumer's marker line: its own BENCH-END line, or bluetoothctl's [NEW] line."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            f.seek(max(0, size - 65536))
            m = MARKER.search(f.read())
    except OSError:
        return None
    return m.group(0).decode(errors="replace") if m else None


def bluetoothctl_counts(path):
    """Signals delivered (an RSSI change line each) and the devices they came from."""
    data = Path(path).read_bytes()
    addresses = BTCTL_RSSI.findall(data)
    return len(addresses), len(set(addresses) - {b"FF:FF:FF:FF:FF:FF"})


def one_run(args, name, argv, mode, keep):
    tmp = Path(tempfile.mkdtemp(prefix="bench-peers-"))
    (tmp / "bus.conf").write_text(BUS_CONFIG.format(socket=tmp / "bus"))
    result = {"consumer": name, "mode": mode, "signals": args.signals, "devices": args.devices}
    daemon = Child(["dbus-daemon", f"--config-file={tmp / 'bus.conf'}", "--nofork", "--nosyslog", "--print-address=1"],
                   stdout=subprocess.PIPE, stderr=open(tmp / "daemon.err", "wb"))
    storm = consumer = None
    try:
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=line_from(daemon.p.stdout, 10, "bus address"))
        env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        storm = Child([str(args.build / "storm"), "--devices", str(args.devices), "--signals", str(args.signals),
                       "--rate", str(args.rate), "--announce", str(args.announce)],
                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(tmp / "storm.err", "wb"), env=env)
        if line_from(storm.p.stdout, 30, "READY from the storm") != "READY":
            raise RuntimeError("the storm did not start")
        out = tmp / "consumer.out"
        consumer = Child(argv, stdin=subprocess.DEVNULL, stdout=open(out, "wb"),
                         stderr=open(tmp / "consumer.err", "wb"), env=env)
        consumer.sample_peak()
        if line_from(storm.p.stdout, 60, "StartDiscovery from the consumer") != "ARMED":
            raise RuntimeError("the storm was not armed")
        time.sleep(args.settle)  # the consumer finishes with the StartDiscovery reply
        if not consumer.running():
            raise RuntimeError(f"the consumer exited early ({tmp / 'consumer.err'})")
        cpu0 = cpu_seconds(consumer.p.pid)
        if mode == "backlog":
            os.kill(consumer.p.pid, signal.SIGSTOP)
        storm.p.stdin.write(b"GO\n")
        storm.p.stdin.flush()
        done = line_from(storm.p.stdout, 900, "DONE from the storm")
        sent = {k: float(v) for k, v in re.findall(r"(\w+)=([-\d.]+)", done)}
        t_cont = None
        if mode == "backlog":
            t_cont = time.time()
            os.kill(consumer.p.pid, signal.SIGCONT)
        deadline = time.monotonic() + max(120.0, args.signals / 200.0)
        line = None
        while time.monotonic() < deadline:
            line = marker_line(out, name)
            if line or not consumer.running():
                break
            time.sleep(0.005)
        t_seen = time.time()
        cpu1 = cpu_seconds(consumer.p.pid)
        sampled = max(consumer.sampled_peak, peak_rss_mib(consumer.p.pid) or 0.0)
        rusage = consumer.stop()
        # ru_maxrss keeps the peak from before exec as well, when the child was a fork of this
        # driver: above the driver's own peak it is the consumer's, below it only VmHWM (read
        # while the consumer lives, every 10 ms; bleexplr bench-ingest exits at the marker) says.
        ru = rusage.ru_maxrss / 1024
        peak = ru if ru > consumer.driver_peak + 0.5 else sampled
        if not line:
            raise RuntimeError(f"no BENCH-END from {name} ({tmp / 'consumer.err'})")
        fields = {k: float(v) for k, v in re.findall(r"(\w+)=([-\d.]+)", line)}
        if "count" in fields:
            count, known = int(fields["count"]), int(fields.get("devices", 0)) - 1  # less the marker
        else:
            count, known = bluetoothctl_counts(out)
        t_end = fields.get("t_end", t_seen)
        wall = t_end - (t_cont if t_cont else sent["t_start"])
        result.update(delivered=count, devices_seen=known, cpu_s=cpu1 - cpu0,
                      us_per_signal=(cpu1 - cpu0) * 1e6 / count if count else None,
                      rate=count / wall if wall > 0 else None, peak_rss_mib=peak, ru_maxrss_mib=ru, vmhwm_mib=sampled, driver_peak_mib=consumer.driver_peak,
                      storm_rate=args.signals / (sent["t_end"] - sent["t_start"]))
        err = (tmp / "daemon.err").read_bytes()
        result["daemon_refused"] = err.count(b"full message queue") + err.count(b"match rules")
        return result
    finally:
        for child in (consumer, storm):
            if child is not None:
                child.stop(timeout=5)
        daemon.stop(timeout=5)
        if keep:
            result["kept"] = str(tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def per_consumer(runs, name, mode, key):
    return [r[key] for r in runs if r["consumer"] == name and r["mode"] == mode and r.get(key) is not None]


def both(runs, name, modes, key, fmt):
    vals = [median(per_consumer(runs, name, m, key)) for m in modes]
    return " / ".join("-" if v is None else fmt(v) for v in vals)


def table(runs, names, modes, labels):
    head = ("| consumer | CPU per signal " + " / ".join(modes) + " (min–max) | rate " + " / ".join(
        "live" if m == "live" else "draining a backlog" for m in modes) +
        " | signals, devices seen | peak RSS | ÷ sink, " + " / ".join(modes) + " | ÷ bleak, " + " / ".join(modes) + " |")
    lines = [head, "|---|---|---|---|---|---|---|"]
    us = {(n, m): median(per_consumer(runs, n, m, "us_per_signal")) for n in names for m in modes}

    def ratios(n, base):
        if n == base:
            return "1"
        if (base, modes[0]) not in us:
            return ""
        vals = [us[(n, m)] / us[(base, m)] if us[(n, m)] and us.get((base, m)) else None for m in modes]
        return " / ".join("-" if v is None else f"{v:.2f}" for v in vals)

    for n in names:
        spread = " / ".join(
            f"{min(v):.1f}–{max(v):.1f}" if (v := per_consumer(runs, n, m, "us_per_signal")) else "-" for m in modes)
        delivered = median([r["delivered"] for r in runs if r["consumer"] == n and "delivered" in r])
        seen = median([r["devices_seen"] for r in runs if r["consumer"] == n and "devices_seen" in r])
        failed = sum(1 for r in runs if r["consumer"] == n and "error" in r)
        note = f" ({failed} runs failed)" if failed else ""
        lines.append(f"| {labels.get(n, n)}{note} | {both(runs, n, modes, 'us_per_signal', lambda v: f'{v:.1f}')} µs "
                     f"({spread}) | {both(runs, n, modes, 'rate', lambda v: f'{v / 1000:.0f}k/s')} | "
                     f"{'-' if delivered is None else f'{delivered:,.0f}'} of {runs[0]['signals']:,}, "
                     f"{'-' if seen is None else f'{seen:,.0f}'} of {runs[0]['devices']:,} | "
                     f"{both(runs, n, modes, 'peak_rss_mib', lambda v: f'{v:.1f}')} MiB | "
                     f"{ratios(n, 'sink') if 'sink' in names else ''} | {ratios(n, 'bleak') if 'bleak' in names else ''} |")
    return "\n".join(lines)


def differences(runs, names, modes):
    """Each consumer's round-by-round difference from the first one (same round, same mode)."""
    out = []
    first = names[0]
    for m in modes:
        for n in names[1:]:
            d = []
            for r in {x["round"] for x in runs}:
                a = [x for x in runs if x["round"] == r and x["mode"] == m and x["consumer"] == first and x.get("us_per_signal")]
                b = [x for x in runs if x["round"] == r and x["mode"] == m and x["consumer"] == n and x.get("us_per_signal")]
                if a and b:
                    d.append(b[0]["us_per_signal"] - a[0]["us_per_signal"])
            if d:
                out.append(f"{n} minus {first}, {m}, round by round: median {statistics.median(d):+.2f} µs, "
                           f"mean {statistics.mean(d):+.3f} (above in {sum(x > 0 for x in d)}, "
                           f"below in {sum(x < 0 for x in d)} of {len(d)})")
    return out


def environment(args):
    def first_line(argv):
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=10).stdout.strip().splitlines()[0]
        except (OSError, IndexError, subprocess.SubprocessError):
            return "?"
    debian = Path("/etc/debian_version").read_text().strip() if Path("/etc/debian_version").exists() else "?"
    rev = first_line(["git", "-C", str(HERE), "describe", "--always", "--dirty"])
    return (f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores, Linux {os.uname().release}, "
            f"Debian {debian}; {first_line(['dbus-daemon', '--version'])}; bluetoothctl "
            f"{first_line(['bluetoothctl', '--version'])}; bleexplr at {rev}; load average "
            f"{os.getloadavg()[0]:.2f} before the run")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--signals", type=int, default=100_000)
    ap.add_argument("--devices", type=int, default=1000)
    ap.add_argument("--modes", default="live,backlog", help="live and/or backlog")
    ap.add_argument("--rate", type=float, default=0, help="signals a second (0: as fast as the bus takes them)")
    ap.add_argument("--announce", type=int, default=0,
                    help="devices not in GetManagedObjects, announced by InterfacesAdded during the storm")
    ap.add_argument("--consumers", default="sink,bleak,bluetoothctl,bleexplr",
                    help="of sink, bleak, bluetoothctl, bleexplr (comma list; empty for only --consumer ones)")
    ap.add_argument("--consumer", action="append", default=[], metavar="NAME=COMMAND",
                    help="another consumer (it prints BENCH-END count=N t_end=S devices=D, see README.md), "
                         "or the name of a known one, in this order after --consumers")
    ap.add_argument("--bleexplr", default=str(HERE.parent.parent / ".build" / "release" / "bleexplr"))
    ap.add_argument("--build", type=Path, default=HERE / "build", help="where storm and sink were built")
    ap.add_argument("--venv", type=Path, default=HERE / ".venv")
    ap.add_argument("--settle", type=float, default=0.5)
    ap.add_argument("--out", type=Path, help="a new folder for the runs (default: a fresh one in /tmp)")
    ap.add_argument("--keep", action="store_true", help="keep each run's bus config and logs")
    ap.add_argument("--differences", action="store_true", help="also print round-by-round differences from the first")
    args = ap.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    if not modes or any(m not in ("live", "backlog") for m in modes):
        sys.exit("bench-peers: --modes is live, backlog or both")

    known = {"sink": [str(args.build / "sink")],
             "bleak": [str(args.venv / "bin" / "python"), str(HERE / "bleak-consumer.py")],
             "bluetoothctl": ["stdbuf", "-oL", "bluetoothctl", "scan", "on"],
             "bleexplr": [args.bleexplr, "bench-ingest"]}
    labels = {"sink": "C libdbus sink (the floor)", "bleak": "bleak 3.1.0", "bluetoothctl": "bluetoothctl",
              "bleexplr": "**bleexplr**"}
    names, commands = [], {}
    for n in [c for c in args.consumers.split(",") if c]:
        if n not in known:
            sys.exit(f"bench-peers: no consumer '{n}' (sink, bleak, bluetoothctl, bleexplr)")
        names.append(n)
        commands[n] = known[n]
    for spec in args.consumer:
        n, eq, cmd = spec.partition("=")
        if not eq and n in known:
            cmd = shlex.join(known[n])
        if not n or not cmd or n in names:
            sys.exit(f"bench-peers: '{spec}' is not NAME=COMMAND, a known consumer, or a name not given before")
        names.append(n)
        commands[n] = shlex.split(cmd)
    if not names:
        sys.exit("bench-peers: no consumers")

    out = args.out or Path(tempfile.mkdtemp(prefix="bench-peers-results-"))
    out.mkdir(parents=True, exist_ok=False if args.out else True)
    raw = out / "runs.jsonl"
    env_line = environment(args)
    print(f"# bench-peers, {env_line}", flush=True)
    print(f"# {args.rounds} rounds of {args.signals:,} signals over {args.devices:,} devices, modes "
          f"{', '.join(modes)}, storm rate {'as fast as the bus takes it' if not args.rate else f'{args.rate:,.0f}/s'}"
          f"{f', {args.announce} devices announced during the storm' if args.announce else ''}", flush=True)
    runs = []
    for rnd in range(1, args.rounds + 1):
        order = names if rnd % 2 else names[::-1]
        for mode in modes:
            for n in order:
                t = time.monotonic()
                try:
                    r = one_run(args, n, commands[n], mode, args.keep)
                except Exception as e:  # noqa: BLE001: recorded, the round goes on
                    r = {"consumer": n, "mode": mode, "signals": args.signals, "devices": args.devices, "error": str(e)}
                r["round"] = rnd
                runs.append(r)
                with open(raw, "a") as f:
                    f.write(json.dumps(r) + "\n")
                if "error" in r:
                    msg = "FAILED: " + r["error"]
                else:
                    msg = (f"{r['us_per_signal'] or 0:.1f} µs a signal, {r['delivered']:,} signals, {r['devices_seen']:,} "
                           f"devices, {r['rate']:,.0f}/s, peak RSS {r['peak_rss_mib']:.1f} MiB")
                print(f"round {rnd}/{args.rounds} {mode:7s} {n:12s} {msg} ({time.monotonic() - t:.0f} s)",
                      file=sys.stderr, flush=True)
    print()
    print(table(runs, names, modes, labels))
    if "bleexplr" in names:
        peaks = [r["peak_rss_mib"] for r in runs if r["consumer"] == "bleexplr" and "peak_rss_mib" in r]
        if peaks:
            top = max(peaks)
            verdict = "met" if top <= RSS_TARGET_MIB else f"MISSED by {top - RSS_TARGET_MIB:.1f} MiB"
            print(f"\nbleexplr peak RSS with {args.devices:,} devices in the storm: {top:.1f} MiB at most, "
                  f"{median(peaks):.1f} MiB median (target ≤ {RSS_TARGET_MIB:.0f} MiB: {verdict})")
    if args.differences and len(names) > 1:
        print()
        print("\n".join(differences(runs, names, modes)))
    print(f"\nruns: {raw}", file=sys.stderr)
    return 1 if any("error" in r for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
