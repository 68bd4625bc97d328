# Shortcuts; the canonical commands are scripts/run.sh and scripts/test.sh (no make needed).
.PHONY: run test test-e2e bench fmt

run:
	scripts/run.sh

test:
	scripts/test.sh

test-e2e:
	scripts/e2e.sh

bench:
	cargo bench -p ambry-core

fmt:
	cargo fmt --all
