.PHONY: demo test bench lab lab-newest
demo:
	scripts/demo
test:
	scripts/test
bench:
	scripts/install-deps
	swift build -c release --product bleexplr-bench
	.build/release/bleexplr-bench
# the lab integration tests (root, qemu): every test on Debian 12 (BlueZ 5.66) then Debian 13 (5.82), as CI runs them
lab:
	swift build --product bleexplr
	Tests/Lab/run-tests.sh
# the same on Debian unstable (the newest BlueZ; image rebuilt once a day, "SID IMAGE DID NOT BUILD" when it cannot be)
lab-newest:
	swift build --product bleexplr
	LAB_SUITE=sid Tests/Lab/run-tests.sh
