#!/usr/bin/env bash
# Runs one fuzz target (see README.md).
#   run_fuzzer.sh replay <replay-binary> <target>             each seed and regression input once
#   run_fuzzer.sh smoke  <libfuzzer-binary> <target> <secs>   a short fuzzing run in a temporary corpus
#   run_fuzzer.sh fuzz   <libfuzzer-binary> <target> <secs> <corpus-dir>   a longer run that keeps its corpus
# Seeds come from the fixture projects (tests/cases/*.md written out, and fixtures/: files of the
# target's kind; whole fixture projects for `runs`) and from regressions/<target>/, the inputs of
# crashes found before.
set -euo pipefail
mode=$1 bin=$2 target=$3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ ! -x "$bin" ]; then
  echo "fuzz target $bin is not built."
  echo "Run \`make fuzz-build\` (it builds the libFuzzer targets in build/fuzz with clang-14; \`make setup-check\` installs clang-14 and libfuzzer-14-dev)."
  exit 1
fi

# seeds <dir>: writes the seed corpus of $target into <dir>.
seeds() {
  local out=$1 n=0
  mkdir -p "$out"
  case $target in
    python) pattern='*.py' ;;
    yaml) pattern='*.y*ml' ;;
    shell) pattern='*.sh' ;;
    markdown) pattern='*.md' ;;
    config) pattern='' ;;
    runs) pattern='' ;;
    lsp) pattern='-' ;;  # recorded sessions only (seeds/lsp/)
  esac
  if [ "$pattern" = - ]; then
    cp "$here/seeds/$target"/* "$out"/
  elif [ "$target" = config ]; then
    # The first byte picks the file kind (even: .trl-lint.yaml, odd: pyproject.toml).
    while IFS= read -r -d '' f; do
      n=$((n + 1))
      case $f in *.toml) { printf '\x01'; sed '/^\[tool.trl-lint\]/d' "$f"; } > "$out/seed-$n" ;;
                 *) { printf '\x00'; cat "$f"; } > "$out/seed-$n" ;; esac
    done < <(find "$fixtures" "$root/tests" -type f \( -name '.trl-lint.y*ml' -o -name 'pyproject.toml' \) -print0 | sort -z)
  elif [ -n "$pattern" ]; then
    while IFS= read -r -d '' f; do
      n=$((n + 1)); cp "$f" "$out/seed-$n"
    done < <(find "$fixtures" -type f -name "$pattern" -print0 | sort -z)
  else
    # One seed per fixture project: its files joined as `=== path` sections. The step-limit
    # fixtures (dataflow/step_limit_*) run 120,000-240,000 evaluation steps on purpose: 12-20 s
    # for one input under the fuzzing instrumentation, over the 10 s timeout that catches hangs.
    # Their golden tests cover them.
    while IFS= read -r -d '' expected; do
      local dir; dir=$(dirname "$expected")
      case $dir in */dataflow/step_limit_*) continue ;; esac
      n=$((n + 1))
      (cd "$dir" && find . -type f \( -name '*.py' -o -name '*.y*ml' -o -name '*.sh' \) -print0 | sort -z |
        while IFS= read -r -d '' f; do printf '=== %s\n' "${f#./}"; cat "$f"; done) > "$out/seed-$n"
    done < <(find "$fixtures" -name expected.txt -print0 | sort -z)
  fi
  if [ -d "$here/regressions/$target" ]; then cp "$here/regressions/$target"/* "$out"/ 2>/dev/null || true; fi
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fixtures=$work/fixtures
python3 "$root/tests/cases/mdtest.py" materialize "$fixtures" "$root/tests/cases" "$root/fixtures/example" \
  "$root/fixtures/formats"
export TRL_LINT_FUZZ_LSP_PROJECT=$fixtures/TRL101/yaml_packing_accel_yaml_cp
# Sanitizer findings must fail the run, and a hang is a finding too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
limits=(-timeout=10 -rss_limit_mb=2048 -max_len=65536)

case $mode in
  replay)
    seeds "$work/seeds"
    exec "$bin" "$work/seeds"
    ;;
  smoke|fuzz)
    secs=$4
    # Absolute: the lsp target changes the working folder to its workspace, and libFuzzer writes
    # new corpus entries to the path as given.
    if [ "$mode" = smoke ]; then corpus=$work/corpus; else mkdir -p "$5"; corpus=$(cd "$5" && pwd); fi
    if [ "$mode" = smoke ]; then artifacts=$PWD/fuzz-artifacts-$target; else artifacts=$(dirname "$corpus")/artifacts-$target; fi
    mkdir -p "$corpus" "$artifacts"
    seeds "$work/seeds"
    # -fork is not used: one process keeps the run short and its output readable.
    if ! "$bin" "${limits[@]}" -max_total_time="$secs" -print_final_stats=0 \
         -artifact_prefix="$artifacts/" "$corpus" "$work/seeds" > "$work/log" 2>&1; then
      tail -n 60 "$work/log"
      echo "fuzz target $target found a problem; the input is in $artifacts/"
      echo "Fix the analyzer, then add the input to tests/fuzz/regressions/$target/."
      exit 1
    fi
    grep -E '^Done [0-9]+ runs' "$work/log" || tail -n 2 "$work/log"
    ;;
  *) echo "usage: $0 replay|smoke|fuzz ..."; exit 2 ;;
esac
