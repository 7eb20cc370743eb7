.PHONY: demo test bench bench-peers bench-memory
demo:
	scripts/demo
test:
	scripts/test
bench:
	scripts/install-deps
	swift build -c release --product bleexplr-bench
	.build/release/bleexplr-bench
# The peer benchmark: bleexplr, the C sink, bleak and bluetoothctl in one BlueZ signal
# storm (bench/peers/README.md). Not in CI: a long run. `make bench-peers ARGS='--rounds 3'`.
bench-peers:
	bench/peers/run $(ARGS)
# Memory of the app with 10,000 demo devices, scanning and recording, over time (10 min).
bench-memory:
	scripts/install-deps
	swift build -c release --product bleexplr
	bench/memory/crowd-rss.py $(ARGS)
