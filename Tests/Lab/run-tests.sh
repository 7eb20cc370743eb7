#!/usr/bin/env bash
# run-tests.sh - bleexplr's lab integration tests (real bluetoothd + virtual LE controllers in a VM).
#
#   Tests/Lab/run-tests.sh            run every executable Tests/Lab/tests/test-* on bookworm, then on trixie
#   Tests/Lab/run-tests.sh itag drop  run tests/test-itag*, tests/test-drop* (or give paths)
#   LAB_SUITE=sid Tests/Lab/run-tests.sh        one suite only (bookworm | trixie | sid)
#   LAB_SUITES="bookworm trixie sid" ...         these suites, one after the other (one VM at a time)
#
# Each suite: its own image (lab.sh build), its own VM, its own "suite S (BlueZ x, kernel y): N passed, N failed,
# N not run" line; with several suites a last "total: ..." line sums them.
# A test that cannot run on this suite (a newer BlueZ needed: labkit's require_bluez; or a reason of its
# own) exits 77 after printing "NOT RUN: why": counted as not run, never as passed; not running is not a
# failure. The summary gives each such test with its own reason.
# A sid image that cannot be built from the day's unstable prints "SID IMAGE DID NOT BUILD: why" and counts
# its tests as not run, not failed (unless LAB_SID_STRICT=1); a cached sid image from an earlier day is used
# if there is one (lab.sh says so).
#
# Builds the lab if needed (cached in $LAB_CACHE, default ~/.cache/bleexplr-lab), boots it ONCE, and for
# each test: checks the VM is alive, resets (hci0 forgets every device, fixtures back to defaults), runs
# the test with BLEEXPLR_LAB_BUS / DBUS_SYSTEM_BUS_ADDRESS pointing at the lab's bus, and on failure
# prints the test's output plus the guest logs of that test (bluetoothd, fixtures, btmon).
# The lab goes down at the end, also on failure or Ctrl-C. Last line: "N passed, N failed".
# Exit status: 0 only if every test ran and passed. If the lab cannot start: "LAB DID NOT START: why",
# every test counts as failed.
#
# A test is any executable file tests/test-*; it passes by exiting 0 (77 + "NOT RUN:": not run). It gets:
#   BLEEXPLR_LAB_BUS, DBUS_SYSTEM_BUS_ADDRESS  the lab's system bus (tcp:host=127.0.0.1,port=17777)
#   BLEEXPLR_LAB_SH  path of lab.sh (e.g. "$BLEEXPLR_LAB_SH" fixture press)
#   BLEEXPLR_LAB_DIR this folder; PYTHONPATH includes lib/ (labkit.py)
#   BLEEXPLR_LAB_SUITE, BLEEXPLR_LAB_BLUEZ, BLEEXPLR_LAB_KERNEL  what the guest runs (e.g. trixie, 5.82, 6.12.57+deb13-amd64)
#
# The chaos test (tests/test-zzzz-chaos.py, bluetoothd killed LAB_CHAOS_KILLS times) runs only when named or with
# LAB_CHAOS=1 (`make lab-chaos`); otherwise it says NOT RUN. A "# lab-timeout: S" line in a test raises its limit.
# Env: LAB_TEST_TIMEOUT (s per test, default 180), LAB_KEEP=1 (leave the lab up at the end),
#      LAB_REUSE=1 (use a lab that is already up, and leave it up), LAB_BTMON (default 1: capture HCI),
#      LAB_VERBOSE=1 (print output of passing tests too), and lab.sh's LAB_* settings.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LAB="$HERE/lab.sh"

# ---- several suites: run this script once per suite, sequentially, and sum up
if [ -z "${LAB_SUITE:-}" ]; then
  suites=(${LAB_SUITES:-bookworm trixie})
  tp=0; tf=0; tn=0; lines=(); rc_all=0
  top="$("$LAB" cache-dir)" || { echo "LAB DID NOT START: $LAB cache-dir failed"; echo "0 passed, 1 failed"; exit 1; }
  mkdir -p "$top/test-output"
  t_all=$SECONDS
  for s in "${suites[@]}"; do
    t_s=$SECONDS
    LAB_SUITE="$s" "$0" "$@"; rc=$?
    if [ "$rc" = 3 ]; then [ "$rc_all" = 0 ] && rc_all=3    # only "SID IMAGE DID NOT BUILD"
    elif [ "$rc" != 0 ]; then rc_all=1; fi
    read -r p f n < "$top/test-output/$s.counts" 2>/dev/null || { p=0; f=1; n=0; }
    tp=$((tp + p)); tf=$((tf + f)); tn=$((tn + n))
    lines+=("$(cat "$top/test-output/$s.summary" 2>/dev/null || echo "suite $s: no summary") [$((SECONDS - t_s))s]")
  done
  printf '\n==================== all suites (%ss)\n' "$((SECONDS - t_all))"
  printf '%s\n' "${lines[@]}"
  echo "total: $tp passed, $tf failed, $tn not run"
  exit "$rc_all"
fi
SUITE="$LAB_SUITE"
export LAB_BTMON="${LAB_BTMON:-1}"
TEST_TIMEOUT="${LAB_TEST_TIMEOUT:-180}"
PORT="${LAB_DBUS_PORT:-17777}"
BUS="tcp:host=127.0.0.1,port=$PORT"
CACHE="$("$LAB" cache-dir)" || { echo "LAB DID NOT START: $LAB cache-dir failed"; echo "0 passed, 1 failed"; exit 1; }
OUT="$CACHE/test-output/$SUITE"
COUNTS="$CACHE/test-output/$SUITE.counts"; SUMMARY="$CACHE/test-output/$SUITE.summary"
VERSIONS="suite=$SUITE"
XLOG="$CACHE/run/xfer/log"

# ---- which tests
tests=()
if [ $# -gt 0 ]; then
  export LAB_CHAOS="${LAB_CHAOS:-1}"   # a test named on the command line runs, the chaos test too
  for a in "$@"; do
    if [ -f "$a" ]; then tests+=("$(cd "$(dirname "$a")" && pwd)/$(basename "$a")"); continue; fi
    m=("$HERE"/tests/test-"$a"*)
    [ -e "${m[0]}" ] || { echo "no test matches '$a' (in $HERE/tests)" >&2; exit 2; }
    tests+=("${m[@]}")
  done
else
  for f in "$HERE"/tests/test-*; do [ -f "$f" ] && [ -x "$f" ] && tests+=("$f"); done
fi
[ ${#tests[@]} -gt 0 ] || { echo "no tests found in $HERE/tests"; echo "0 passed, 1 failed"; exit 1; }

pass=0; fail=0; notrun=0; ran=0; child=""; failed_names=(); notrun_names=(); notrun_why=(); finished=0; lab_owned=0; lab_down_done=0
rm -rf "$OUT" "$COUNTS" "$SUMMARY"; mkdir -p "$OUT"

counts() {   # the suite's closing line, also left in files for the several-suites summary
  local line="suite $SUITE ($VERSIONS): $pass passed, $fail failed, $notrun not run"
  echo "$pass $fail $notrun" > "$COUNTS"; echo "$line" > "$SUMMARY"
  say "$line"
}

say() { printf '%s\n' "$*"; }
banner() { say ""; say "==================== $*"; }

lab_down() {
  [ "$lab_down_done" = 1 ] && return 0
  lab_down_done=1
  # keep the guest logs of this run for CI artifacts / later reading
  [ -d "$XLOG" ] && cp -r "$XLOG" "$OUT/guest-log" 2>/dev/null
  if [ "$lab_owned" = 1 ] && [ "${LAB_KEEP:-0}" != 1 ]; then
    "$LAB" down > "$OUT/lab-down.log" 2>&1 || { say "lab.sh down failed:"; cat "$OUT/lab-down.log"; }
  elif [ "$lab_owned" = 1 ]; then
    say "LAB_KEEP=1: the lab stays up ($("$LAB" status))"
  fi
}

on_exit() {
  local rc=$?
  lab_down
  [ -n "$child" ] && kill "$child" 2>/dev/null   # the test that was running
  if [ "$finished" != 1 ]; then   # interrupted or crashed: everything that did not pass counts as failed
    local left=$(( ${#tests[@]} - pass - fail - notrun ))
    fail=$(( ${#tests[@]} - pass - notrun ))
    say "RUN ABORTED (status $rc): $left test(s) did not run or did not finish; they count as failed"
    counts
    exit 1
  fi
  exit "$rc"
}
trap on_exit EXIT
trap 'say "interrupted"; exit 130' INT TERM HUP

# ---- bring the lab up once
lab_fail() {
  local reason="$1"
  case "$reason" in *": ") reason="$reason$(grep -v '^\s*$' "$OUT/lab-up.log" | tail -1)" ;; esac
  say ""
  say "LAB DID NOT START: $reason"
  say "---- lab output (last 40 lines; full: $OUT/lab-up.log)"
  tail -n 40 "$OUT/lab-up.log"
  for f in stage2 fixtures bluetoothd bumble btvirt; do
    [ -s "$XLOG/$f.log" ] && { say "---- guest $f.log (last 30 lines)"; tail -n 30 "$XLOG/$f.log"; }
  done
  [ -s "$CACHE/run/console.log" ] && { say "---- VM console (last 20 lines)"; tail -n 20 "$CACHE/run/console.log"; }
  lab_down
  finished=1
  if [ "$SUITE" = sid ] && grep -q 'SID IMAGE DID NOT BUILD' "$OUT/lab-up.log" && [ "${LAB_SID_STRICT:-0}" != 1 ]; then
    # the day's Debian unstable, not bleexplr: loud, and its tests are not run rather than failed
    notrun=${#tests[@]}; VERSIONS="SID IMAGE DID NOT BUILD"
    say "$(grep -h 'SID IMAGE DID NOT BUILD' "$OUT/lab-up.log" | tail -1 | sed 's/^\[lab [0-9:]*\] //')"
    counts
    exit 3
  fi
  fail=${#tests[@]}
  say "LAB DID NOT START: $reason"
  counts
  exit 1
}

banner "lab up (${#tests[@]} test(s))"
t_up=$SECONDS
if [ "${LAB_REUSE:-0}" = 1 ] && "$LAB" status 2>/dev/null | grep -q 'ready=yes'; then
  say "LAB_REUSE=1: using the lab that is already up"
  : > "$OUT/lab-up.log"
else
  if "$LAB" status 2>/dev/null | grep -q '^up'; then
    say "a lab is already up: restarting it for a clean run (LAB_REUSE=1 keeps it)"
    "$LAB" down > /dev/null 2>&1
  fi
  lab_owned=1
  "$LAB" build 2>&1 | tee "$OUT/lab-up.log"
  [ "${PIPESTATUS[0]}" = 0 ] || lab_fail "lab.sh build: $(grep -h 'ERROR:' "$OUT/lab-up.log" | tail -1 | sed 's/.*ERROR: //')"
  "$LAB" up 2>&1 | tee -a "$OUT/lab-up.log"
  [ "${PIPESTATUS[0]}" = 0 ] || lab_fail "lab.sh up: $(grep -h 'ERROR:' "$OUT/lab-up.log" | tail -1 | sed 's/.*ERROR: //')"
fi
"$LAB" status 2>/dev/null | grep -q 'ready=yes' || lab_fail "lab.sh up returned but the VM is not ready"
# what the guest really runs (stage2 wrote it): printed, handed to the tests, and in the closing line
vline="$(cat "$CACHE/run/xfer/state/versions" 2>/dev/null)"
BLUEZ_V="$(sed -n 's/.*bluez=\([^ ]*\).*/\1/p' <<< "$vline")"; KERNEL_V="$(sed -n 's/.*kernel=\([^ ]*\).*/\1/p' <<< "$vline")"
VERSIONS="BlueZ ${BLUEZ_V:-unknown}, kernel ${KERNEL_V:-unknown}"
if [ "$SUITE" = sid ] && [ "$(cut -d' ' -f1 "$CACHE/sid-build-failed" 2>/dev/null)" = "$(date -u +%F)" ]; then
  say "SID IMAGE DID NOT BUILD today: $(cut -d' ' -f2- "$CACHE/sid-build-failed"); running on the sid image of $(cat "$CACHE/sid/.built" 2>/dev/null)"
  VERSIONS="$VERSIONS, OLD sid image of $(cut -c1-10 "$CACHE/sid/.built" 2>/dev/null): today's did not build"
fi
say "lab up in $((SECONDS - t_up))s: suite $SUITE, $VERSIONS"
export BLEEXPLR_LAB_SUITE="$SUITE" BLEEXPLR_LAB_BLUEZ="${BLUEZ_V:-unknown}" BLEEXPLR_LAB_KERNEL="${KERNEL_V:-unknown}"

# ---- run the tests
export BLEEXPLR_LAB_BUS="$BUS" DBUS_SYSTEM_BUS_ADDRESS="$BUS" BLEEXPLR_LAB_SH="$LAB" BLEEXPLR_LAB_DIR="$HERE"
export PYTHONPATH="$HERE/lib${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
GUEST_LOGS=(bluetoothd fixtures gatt-server advertisement stage2 bumble)

for t in "${tests[@]}"; do
  name="$(basename "$t")"
  banner "$name"
  ran=$((ran + 1))
  if ! "$LAB" status 2>/dev/null | grep -q 'ready=yes'; then
    fail=$((fail + 1)); failed_names+=("$name")
    say "FAIL $name: THE LAB IS DOWN (qemu exited?) - $("$LAB" status 2>&1)"
    continue
  fi
  declare -A off=()
  for f in "${GUEST_LOGS[@]}"; do off[$f]=$(stat -c %s "$XLOG/$f.log" 2>/dev/null || echo 0); done
  t0=$SECONDS
  # in the background + wait: a signal to this script then acts at once (the trap stops the test)
  LAB_TEST_NAME="$name" timeout -k 5 90 /usr/bin/python3 "$HERE/lib/reset.py" > "$OUT/$name.reset.log" 2>&1 < /dev/null & child=$!
  if ! wait "$child"; then
    rc=reset
  else
    # a test may need longer: a "# lab-timeout: S" line in it raises its limit
    tt=$(sed -n 's/^# lab-timeout: *\([0-9][0-9]*\).*/\1/p' "$t" | head -1)
    [ -n "$tt" ] && [ "$tt" -gt "$TEST_TIMEOUT" ] || tt=$TEST_TIMEOUT
    timeout -k 5 "$tt" "$t" > "$OUT/$name.log" 2>&1 < /dev/null & child=$!
    wait "$child"; rc=$?
  fi
  child=""
  dt=$((SECONDS - t0))
  if [ "$rc" = 77 ] && grep -q '^.*NOT RUN:' "$OUT/$name.log"; then
    why="$(grep -h 'NOT RUN:' "$OUT/$name.log" | head -1 | sed 's/.*NOT RUN: //')"
    notrun=$((notrun + 1)); notrun_names+=("$name"); notrun_why+=("$why")
    say "NOT RUN $name: $why (${dt}s)"
    continue
  fi
  if [ "$rc" = 0 ]; then
    pass=$((pass + 1))
    [ "${LAB_VERBOSE:-0}" = 1 ] && sed 's/^/    /' "$OUT/$name.log"
    say "PASS $name (${dt}s)"
    continue
  fi
  fail=$((fail + 1)); failed_names+=("$name")
  case "$rc" in
    reset) say "---- reset before the test FAILED:"; sed 's/^/    /' "$OUT/$name.reset.log" ;;
    124|137) say "---- test output (TIMED OUT after ${tt:-$TEST_TIMEOUT}s):"; sed 's/^/    /' "$OUT/$name.log" ;;
    *) say "---- test output (exit status $rc):"; sed 's/^/    /' "$OUT/$name.log" ;;
  esac
  for f in "${GUEST_LOGS[@]}"; do
    [ -f "$XLOG/$f.log" ] || continue
    n=$(( $(stat -c %s "$XLOG/$f.log") - ${off[$f]} ))
    [ "$n" -gt 0 ] || continue
    say "---- guest $f.log during this test (last 150 lines)"
    tail -c "+$(( ${off[$f]} + 1 ))" "$XLOG/$f.log" | tail -n 150 | sed 's/^/    /'
  done
  if [ "$LAB_BTMON" = 1 ]; then
    say "---- btmon (HCI trace, last 200 lines)"
    LAB_LOG_LINES=200 timeout 90 "$LAB" logs btmon 2>&1 | sed 's/^/    /'
  fi
  # the failure once more, last: a CI log that keeps only its end still says why
  say "---- $name failed: the end of its output again"
  grep -v '^ *\[.*\] ok: ' "$OUT/$name.log" | tail -n 40 | sed 's/^/    /'
  say "FAIL $name (${dt}s)"
done

# ---- summary (the lab goes down first, so the closing line is the last one)
lab_down
finished=1
banner "summary"
[ ${#failed_names[@]} -eq 0 ] || say "failed: ${failed_names[*]}"
for n in "${failed_names[@]}"; do   # why, in one line each (the first line of labkit's FAIL)
  say "  $n: $(grep -h -m1 'FAIL' "$OUT/$n.log" 2>/dev/null | cut -c1-300)"
done
[ ${#notrun_names[@]} -eq 0 ] || say "not run: ${notrun_names[*]}"
for i in "${!notrun_names[@]}"; do   # each with its own reason (the test's "NOT RUN:" line)
  say "  ${notrun_names[$i]}: $(cut -c1-300 <<< "${notrun_why[$i]}")"
done
say "test output and guest logs: $OUT"
counts
if [ "$fail" = 0 ] && [ $((pass + notrun)) = "${#tests[@]}" ]; then exit 0; else exit 1; fi
