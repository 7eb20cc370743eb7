.PHONY: demo test bench bench-peers bench-lab bench-link bench-memory fuzz-long soak lab lab-chaos lab-newest release install uninstall deb deb-test
demo:
	scripts/demo
test:
	scripts/test
bench:
	scripts/install-deps
	swift build -c release --product bleexplr-bench
	swift build -c release --product bleexplr
	.build/release/bleexplr-bench
# The peer benchmark: bleexplr, the C sink, bleak and bluetoothctl in one BlueZ signal
# storm (bench/peers/README.md). Not in CI: a long run. `make bench-peers ARGS='--rounds 3'`.
bench-peers:
	bench/peers/run $(ARGS)
# Enter to device screen in the lab (issue 18): the app in tmux against bluetoothctl connect and a plain
# python3-dbus Connect, ROUNDS interleaved rounds each (default 5) on the lab's example server
# (PERIPHERAL=itag: Lab iTag); bookworm then trixie (LAB_SUITE=bookworm: one). Not in CI: prints figures
# (docs/bench.md), fails only when a tool cannot connect at all. Boots its own lab, as `make lab` does.
bench-lab:
	swift build --product bleexplr
	LAB_VERBOSE=1 BENCH_ROUNDS=$(or $(ROUNDS),5) BENCH_PERIPHERAL=$(or $(PERIPHERAL),example) Tests/Lab/run-tests.sh bench/lab/enter-to-device
# The link at full speed in the lab (issue 18): notifications a second received and lost, Write Commands a
# second, CPU a notification, bleexplr (the release build) next to bleak (pinned, bench/lab/link-requirements.txt)
# and bluetoothctl, every client inside the VM on its Unix bus; ROUNDS interleaved rounds (default 3), bookworm
# then trixie (LAB_SUITE=bookworm: one). Not in CI: prints figures (docs/bench.md). Boots its own lab.
bench-link:
	swift build -c release --product bleexplr --static-swift-stdlib
	LAB_VERBOSE=1 BENCH_ROUNDS=$(or $(ROUNDS),3) BLEEXPLR_BIN=$(CURDIR)/.build/release/bleexplr Tests/Lab/run-tests.sh bench/lab/link-speed
# Memory of the app with 10,000 demo devices, scanning and recording, over time (10 min).
bench-memory:
	scripts/install-deps
	swift build -c release --product bleexplr
	bench/memory/crowd-rss.py $(ARGS)
# Every fuzz target for at least 1,000,000 executions (FUZZ_LONG_SECONDS caps each one);
# prints executions and coverage per target.
fuzz-long:
	scripts/fuzz --runs 1000000 --max-seconds $${FUZZ_LONG_SECONDS:-0}
# The demo with --crowd 1000, recording on and a notification flood; MINUTES=60 by default. Fails when RSS after
# the first minute moves by more than 4 MiB, frames go above the app's bound, quit takes over 100 ms, or the recording is invalid.
soak:
	scripts/soak --minutes $${MINUTES:-60} --max-spread 4
# the lab integration tests (root, qemu): every test on Debian 12 (BlueZ 5.66) then Debian 13 (5.82), as CI runs them
lab:
	swift build --product bleexplr
	Tests/Lab/run-tests.sh
# bluetoothd killed LAB_CHAOS_KILLS times (default 10) in one session, on bookworm then trixie (docs/testing.md)
lab-chaos:
	swift build --product bleexplr
	LAB_CHAOS=1 Tests/Lab/run-tests.sh zzzz-chaos
# the same on Debian unstable (the newest BlueZ; image rebuilt once a day, "SID IMAGE DID NOT BUILD" when it cannot be)
lab-newest:
	swift build --product bleexplr
	LAB_SUITE=sid Tests/Lab/run-tests.sh
# The shipped binary: release, with the Swift runtime linked in (no /opt/swift at run time).
release:
	swift build -c release --product bleexplr --static-swift-stdlib
# The binary, bleexplr(1) and the bash, zsh and fish completions under $(DESTDIR)$(PREFIX)
# (`scripts/install-files list "" PREFIX` shows where); uninstall removes exactly those files.
# install takes what `make release` built (and builds it when there is none: sudo has no swift).
PREFIX ?= /usr/local
install:
	@[ -x .build/release/bleexplr ] || $(MAKE) release
	scripts/install-files install "$(DESTDIR)" "$(PREFIX)" .build/release/bleexplr
uninstall:
	scripts/install-files uninstall "$(DESTDIR)" "$(PREFIX)"
# .build/deb/bleexplr_VERSION_ARCH.deb (dpkg-deb; Depends from the libraries the binary links)
deb: release
	packaging/build-deb .build/release/bleexplr .build/deb
# the newest .deb of `make deb` installed into a fresh Debian root (debootstrap, cached) and
# run there; needs root (docs/install.md)
deb-test:
	@ls .build/deb/bleexplr_*.deb >/dev/null 2>&1 || { echo "no .deb in .build/deb: run make deb first" >&2; exit 2; }
	packaging/test-deb "$$(ls -t .build/deb/bleexplr_*.deb | head -1)"
