#!/usr/bin/env bash
# Evaluation-stage scaling: 500, 1,000 and 2,000 modules, each size in its own process so the
# peak RSS is that size's own. Usage: bench/eval_scaling.sh [build-dir]
set -euo pipefail
bin=${1:-build}/bench_eval
for n in 500 1000 2000; do "$bin" "$n" 7; done
