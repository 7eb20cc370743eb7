.PHONY: demo test bench fuzz-long soak
demo:
	scripts/demo
test:
	scripts/test
bench:
	scripts/install-deps
	swift build -c release --product bleexplr-bench
	.build/release/bleexplr-bench
# Every fuzz target for at least 1,000,000 executions (FUZZ_LONG_SECONDS caps each one);
# prints executions and coverage per target.
fuzz-long:
	scripts/fuzz --runs 1000000 --max-seconds $${FUZZ_LONG_SECONDS:-0}
# The demo with --crowd 1000, recording on and a notification flood; MINUTES=60 by default.
soak:
	scripts/soak --minutes $${MINUTES:-60}
