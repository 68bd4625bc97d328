# Engram: `make run` sets up and launches the app; `make test` runs the whole test suite.
SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)

TARGET := $(or $(CARGO_TARGET_DIR),$(CURDIR)/target)
# Embedding assets for the tests (ONNX Runtime + all-MiniLM-L6-v2), fetched once.
export ENGRAM_TEST_MODELS ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/engram/models
BIN_DIR ?= $(HOME)/.local/bin

.PHONY: run app cli test test-unit test-e2e bench fmt

run: ## install what is missing, build, install the CLI, launch the app
	scripts/setup.sh --for run
	$(MAKE) cli
	cargo build --release --features custom-protocol -p engram-app
	$(TARGET)/release/engram-app

cli: ## build the `engram` command and put it on PATH ($(BIN_DIR))
	cargo build --release -p engram-cli
	mkdir -p $(BIN_DIR) && install -m 755 $(TARGET)/release/engram $(BIN_DIR)/engram
	@echo "engram installed to $(BIN_DIR)/engram"

test: ## everything: unit, integration, CLI, eval gates, and the real app under Xvfb
	scripts/setup.sh --for test
	cargo test --workspace --locked
	scripts/e2e.sh

test-unit:
	cargo test --workspace --locked

test-e2e:
	scripts/e2e.sh

bench:
	cargo bench -p engram-core

fmt:
	cargo fmt --all
