# trl-lint: the usual entry points. `make help` lists them.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo

PYTHON ?= python3
.PHONY: wheel help setup setup-test setup-check configure build fuzz-build fuzz test-asan demo test check check-extra lint lint-format lint-tidy clean bench-eval bench-lsp bench
FUZZ_BUILD ?= $(BUILD)/fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = python yaml shell markdown config runs lsp
ASAN_BUILD ?= build-asan

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

setup: ## Install what the build needs (Debian packages, the npm-pinned grammars); tools come with their tier
	@scripts/setup.sh build

setup-test: ## Install what `make test` needs: the build's packages and git, pre-commit, strace, python3-venv
	@scripts/setup.sh test

setup-check: ## Install what `make check` adds: clang-14/libFuzzer, clang-tidy, Neovim, Emacs, the SARIF multitool
	@scripts/setup.sh check

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

configure: $(BUILD)/CMakeCache.txt ## Configure the build folder (cmake) without building

build: $(BUILD)/CMakeCache.txt ## Build build/trl-lint, the tests and the benchmarks (run `make setup` first; no fuzzers)
	cmake --build $(BUILD) -j $(JOBS)

# The libFuzzer targets need clang: a second build folder, configured with clang-14 and the
# sanitizers. ccache keeps it cheap after the first build. `make check` builds it; FUZZ=0 skips it
# (the fuzz-smoke tests then fail, saying so).
fuzz-build: ## Build the libFuzzer targets with clang-14 in build/fuzz
	@if [ "$(FUZZ)" = 0 ]; then echo "fuzz-build: skipped (FUZZ=0)"; \
	elif ! command -v clang++-14 >/dev/null 2>&1; then echo "fuzz-build: clang++-14 missing; run \`make setup\`"; \
	else \
	  [ -f $(FUZZ_BUILD)/CMakeCache.txt ] || CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ_BUILD) \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRL_LINT_FUZZ=ON -DTRL_LINT_TESTS=OFF >/dev/null && \
	  cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzzers; \
	fi

fuzz: fuzz-build ## Fuzz every target for FUZZ_SECONDS (60) each; corpora kept in build/fuzz/corpus
	@for t in $(FUZZ_TARGETS); do \
	  echo "== fuzz_$$t ($(FUZZ_SECONDS) s)"; \
	  tests/fuzz/run_fuzzer.sh fuzz $(FUZZ_BUILD)/tests/fuzz/fuzz_$$t $$t $(FUZZ_SECONDS) $(FUZZ_BUILD)/corpus/$$t || exit 1; \
	done

# The sanitized suite is the test tier (every test without the label `check`) under the
# sanitizers: the check tier's tests run no more of our code than it does under sanitizers
# (clang-format, clang-tidy, the new-rule build) or repeat it over every fixture project many times.
# Tests labelled `sweep` (the test tier's runs over every fixture project) are left out too: the
# cases and golden tests already run each project there once, and a sample of each sweep keeps
# its checks.
test-asan: setup-test ## Build with AddressSanitizer+UndefinedBehaviorSanitizer in build-asan and run the test tier there
	[ -f $(ASAN_BUILD)/CMakeCache.txt ] || cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DTRL_LINT_SANITIZE=ON -DTRL_LINT_FUZZ_SMOKE=OFF
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target test_binaries
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS) -LE '^(check|sweep)$$'

demo: setup $(BUILD)/CMakeCache.txt ## Install what the build needs, build build/trl-lint alone, lint the bundled example project
	cmake --build $(BUILD) -j $(JOBS) --target trl-lint
	@echo "== trl-lint fixtures/example =="
	@cd fixtures/example && ../../$(BUILD)/trl-lint . ; status=$$?; \
	  echo "(exit code $$status: 0 clean, 1 findings, 2 error)"; [ $$status -le 1 ]

# Two tiers of tests (ctest labels, declared beside each test in tests/CMakeLists.txt):
# `make test` runs every test without the label `check`; `make check` runs those too, then the
# `check` ones and the sanitized suite.
test: setup-test $(BUILD)/CMakeCache.txt ## Install the test tools, build trl-lint and the test binaries, run the test tier (unit, cases, golden, integration)
	cmake --build $(BUILD) -j $(JOBS) --target test_binaries
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE '^check$$'

check: ## `make test`, then the check tier (`make check-extra`) and the sanitized suite (`make test-asan`)
	@$(MAKE) --no-print-directory test
	@$(MAKE) --no-print-directory check-extra
	@$(MAKE) --no-print-directory test-asan

check-extra: setup-check $(BUILD)/CMakeCache.txt ## The check tier alone: clang-tidy, libFuzzer build and smoke runs, editors, new-rule, SARIF multitool
	cmake --build $(BUILD) -j $(JOBS)
	@$(MAKE) --no-print-directory fuzz-build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L '^check$$'

# The wheel packages build/trl-lint (stripped) through the in-tree backend of pyproject.toml;
# `pip install .` builds its own binary in build/wheel instead. Offline: the backend needs no
# package from an index.
wheel: $(BUILD)/CMakeCache.txt ## Build the Python wheel (trl-lint binary inside) into dist/
	cmake --build $(BUILD) -j $(JOBS) --target trl-lint
	TRL_LINT_BINARY=$(abspath $(BUILD))/trl-lint $(PYTHON) -m pip wheel --no-deps --no-index -w dist .
	@ls -l dist/*.whl

lint: lint-format lint-tidy ## clang-format --dry-run and clang-tidy over all of analyzer/ rules/ tests/ bench/

lint-format: ## clang-format --dry-run -Werror over our C++ (.clang-format)
	scripts/lint.sh format

lint-tidy: $(BUILD)/CMakeCache.txt ## clang-tidy over every .cpp of ours (.clang-tidy; slow: minutes on 2 cores)
	JOBS=$(JOBS) scripts/lint.sh tidy $(BUILD)

clean: ## Remove the build folders
	rm -rf $(BUILD) $(ASAN_BUILD)

bench-eval: build ## Evaluation-stage scaling benchmark (500/1,000/2,000 modules)
	bench/eval_scaling.sh $(BUILD)

bench-lsp: build ## LSP edit-to-diagnostics latency (p50/p95, 200 edits, 1,000-file workspace)
	$(BUILD)/bench_lsp $(BUILD)/trl-lint 200

bench: build ## trl-lint end to end vs a parse-only baseline at 60/1k/5k/20k files (writes build/bench/results.txt)
	bench/run_bench.py $(BUILD) $(if $(shell command -v valgrind),--instructions,)
