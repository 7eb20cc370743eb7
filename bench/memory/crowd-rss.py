#!/usr/bin/env python3
"""Memory of the app in a crowded room (make bench-memory): the real binary in a 120x40
tmux, on the demo world with N more anonymous devices (`--demo --crowd N`), scanning
(as it does from the start) and recording every event to a file, for a given time. Prints its resident
memory (VmRSS, and the high-water mark VmHWM) and the events recorded so far every
SAMPLE seconds, then how much it grew after the first minute. Figures only.

    bench/memory/crowd-rss.py [--crowd 10000] [--seconds 600] [--sample 15] [--binary B]

The recording goes to a new temporary folder, removed at the end (--keep keeps it).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def status(pid):
    out = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) / 1024
    except OSError:
        return None
    return out


def cpu_seconds(pid):
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class LineCounter:
    """Lines of a file that grows, counted as it grows (not read again from the start)."""

    def __init__(self, path):
        self.path, self.offset, self.lines = path, 0, 0

    def count(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                while chunk := f.read(1 << 20):
                    self.lines += chunk.count(b"\n")
                    self.offset += len(chunk)
        except OSError:
            pass
        return self.lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--crowd", type=int, default=10_000)
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--sample", type=float, default=15)
    ap.add_argument("--binary", default=str(ROOT / ".build" / "release" / "bleexplr"))
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    if not os.access(a.binary, os.X_OK) or not shutil.which("tmux"):
        sys.exit(f"crowd-rss: needs {a.binary} (swift build -c release --product bleexplr) and tmux")
    tmp = Path(tempfile.mkdtemp(prefix="crowd-rss-"))
    record = tmp / "session.jsonl"
    sock = f"crowd-rss-{os.getpid()}"

    def tmux(*args):
        return subprocess.run(["tmux", "-L", sock, *args], capture_output=True, text=True).stdout.strip()

    tmux("new-session", "-d", "-x", "120", "-y", "40",
         f"exec {a.binary} --demo --crowd {a.crowd} --record {record}")
    try:
        pid = int(tmux("display-message", "-p", "#{pane_pid}"))
        # The app scans from the start (scanWanted); no key is pressed: `s` would stop it.
        t0 = time.monotonic()
        lines = LineCounter(record)
        print(f"# crowd-rss, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: bleexplr --demo --crowd "
              f"{a.crowd:,} --record FILE, scanning, in a 120x40 tmux, {a.seconds:.0f} s", flush=True)
        print("| time | VmRSS | VmHWM | events recorded | CPU so far |")
        print("|---|---|---|---|---|", flush=True)
        curve = []
        while True:
            t = time.monotonic() - t0
            s = status(pid)
            if s is None:
                sys.exit("crowd-rss: bleexplr exited")
            n = lines.count()
            curve.append((t, s["VmRSS"], s["VmHWM"], n))
            print(f"| {t:5.0f} s | {s['VmRSS']:.1f} MiB | {s['VmHWM']:.1f} MiB | {n:,} | {cpu_seconds(pid):.0f} s |",
                  flush=True)
            if t >= a.seconds:
                break
            time.sleep(max(0.0, min(a.sample, a.seconds - t)))
        after = [c for c in curve if c[0] >= 60]
        if len(after) >= 2:
            first, last = after[0], after[-1]
            top = max(c[1] for c in after)
            print(f"\nafter the first minute ({first[0]:.0f}–{last[0]:.0f} s, {first[3]:,} → {last[3]:,} events "
                  f"recorded): VmRSS {first[1]:.1f} → {last[1]:.1f} MiB ({last[1] - first[1]:+.1f} MiB, "
                  f"{(last[1] - first[1]) / first[1] * 100:+.1f} %), at most {top:.1f} MiB; "
                  f"peak (VmHWM) {last[2]:.1f} MiB")
        else:
            print("\n(shorter than a minute and one sample: no figure for after the first minute)")
    finally:
        tmux("kill-server")
        if a.keep:
            print(f"recording kept in {record}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
