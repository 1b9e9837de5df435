# trl-lint: the usual entry points. `make help` lists them.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo

.PHONY: help setup configure build demo test lint lint-format lint-tidy clean bench-eval

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

setup: ## Install the Debian packages and npm grammars the build and the tests need
	@scripts/setup.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

configure: $(BUILD)/CMakeCache.txt ## Configure the build folder (cmake) without building

build: $(BUILD)/CMakeCache.txt ## Build build/trl-lint (run `make setup` first on a fresh machine)
	cmake --build $(BUILD) -j $(JOBS)

demo: setup build ## Set up, build, and lint the bundled example project
	@echo "== trl-lint fixtures/example =="
	@cd fixtures/example && ../../$(BUILD)/trl-lint . ; status=$$?; \
	  echo "(exit code $$status: 0 clean, 1 findings, 2 error)"; [ $$status -le 1 ]

test: setup build ## Set up, build, and run the whole test suite through ctest (includes lint/clang-format and lint/clang-tidy on a subset)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

lint: lint-format lint-tidy ## clang-format --dry-run and clang-tidy over all of analyzer/ rules/ tests/ bench/

lint-format: ## clang-format --dry-run -Werror over our C++ (.clang-format)
	scripts/lint.sh format

lint-tidy: $(BUILD)/CMakeCache.txt ## clang-tidy over every .cpp of ours (.clang-tidy; slow: minutes on 2 cores)
	JOBS=$(JOBS) scripts/lint.sh tidy $(BUILD)

clean: ## Remove the build folder
	rm -rf $(BUILD)

bench-eval: build ## Evaluation-stage scaling benchmark (500/1,000/2,000 modules)
	bench/eval_scaling.sh $(BUILD)
