.PHONY: demo test bench
demo:
	scripts/demo
test:
	scripts/test
bench:
	scripts/install-deps
	swift build -c release --product bleexplr-bench
	.build/release/bleexplr-bench
