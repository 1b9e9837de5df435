# trl-lint: the usual entry points. `make help` lists them.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo

.PHONY: help setup configure build demo test clean bench-eval bench

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

setup: ## Install the Debian packages and npm grammars the build and the tests need
	@scripts/setup.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

configure: $(BUILD)/CMakeCache.txt

build: $(BUILD)/CMakeCache.txt ## Build build/trl-lint (run `make setup` first on a fresh machine)
	cmake --build $(BUILD) -j $(JOBS)

demo: setup build ## Set up, build, and lint the bundled example project
	@echo "== trl-lint fixtures/example =="
	@cd fixtures/example && ../../$(BUILD)/trl-lint . ; status=$$?; \
	  echo "(exit code $$status: 0 clean, 1 findings, 2 error)"; [ $$status -le 1 ]

test: setup build ## Set up, build, and run the whole test suite through ctest
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

clean: ## Remove the build folder
	rm -rf $(BUILD)

bench-eval: build ## Evaluation-stage scaling benchmark (500/1,000/2,000 modules)
	bench/eval_scaling.sh $(BUILD)

bench: build ## trl-lint end to end vs a parse-only baseline at 60/1k/5k/20k files (writes build/bench/results.txt)
	bench/run_bench.py $(BUILD)
