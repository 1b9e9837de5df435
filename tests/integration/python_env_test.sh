#!/usr/bin/env bash
# Which Python environment decides the installed versions (python_environment.hpp): `--python`
# (an interpreter or a folder), then $VIRTUAL_ENV, then the project's .venv/, then $CONDA_PREFIX;
# each library the environment lacks falls back to the pins. The metadata is read, never run.
# Usage: python_env_test.sh TRL_LINT FIXTURE (TRL001/installed_version_beats_pin)
set -u
bin=$(realpath "$1")
fixture=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset VIRTUAL_ENV CONDA_PREFIX

cp -R "$fixture" "$work/project"
project=$work/project
# An environment outside the project with TRL 0.26.0 (which has `num_generations_eval`).
env_with() {  # env_with FOLDER VERSION [egg]
  local site="$1/lib/python3.12/site-packages"
  mkdir -p "$1/bin" "$site"
  : > "$1/bin/python"
  echo "home = /usr/bin" > "$1/pyvenv.cfg"
  if [ "${3:-}" = egg ]; then
    mkdir -p "$site/trl-$2-py3.12.egg-info"
    printf 'Metadata-Version: 2.1\nName: trl\nVersion: %s\n' "$2" > "$site/trl-$2-py3.12.egg-info/PKG-INFO"
  else
    mkdir -p "$site/trl-$2.dist-info"
    printf 'Metadata-Version: 2.1\nName: trl\nVersion: %s\n' "$2" > "$site/trl-$2.dist-info/METADATA"
  fi
}
env_with "$work/outside" 0.26.0
lint() { (cd "$project" && "$bin" --no-cache --output-format concise "$@" . 2>/dev/null); }
typo='`per_device_train_batchsize`'
later='`num_generations_eval`'

# The project's own .venv/ (TRL 0.21.0): both keys reported, judged against 0.21.0.
out=$(lint)
grep -q "$later.*TRL 0.21.0 (installed: .venv/lib/python3.11/site-packages/trl-0.21.0.dist-info)" <<<"$out" ||
  fail "the project's .venv/ did not decide: $out"

# $VIRTUAL_ENV beats the project's .venv/: TRL 0.26.0 has num_generations_eval.
out=$(VIRTUAL_ENV=$work/outside lint)
grep -q "$typo.*TRL 0.26.0 (installed in \$VIRTUAL_ENV: $work/outside/lib/python3.12/site-packages/trl-0.26.0.dist-info)" <<<"$out" ||
  fail "\$VIRTUAL_ENV did not decide: $out"
grep -q "$later" <<<"$out" && fail "num_generations_eval reported against the activated TRL 0.26.0: $out"

# --python beats $VIRTUAL_ENV: an interpreter of an environment, or the environment's folder.
env_with "$work/other" 0.21.0
for python in "$work/outside/bin/python" "$work/outside" "$work/outside/"; do
  out=$(VIRTUAL_ENV=$work/other lint --python "$python")
  grep -q "$typo.*TRL 0.26.0 (installed in the --python environment: $work/outside/lib/" <<<"$out" ||
    fail "--python $python did not decide: $out"
done
# Relative to the working folder, as any path argument.
out=$(cd "$work" && "$bin" --no-cache --output-format concise --python outside/bin/python project 2>/dev/null)
grep -q "TRL 0.26.0 (installed in the --python environment" <<<"$out" || fail "--python relative path: $out"

# --python naming no environment: a usage error (exit 2) saying so.
for bad in "$work/missing/bin/python" "$work/project/launch.sh" "$work/project"; do
  err=$(cd "$project" && "$bin" --no-cache --python "$bad" . 2>&1 >/dev/null)
  status=$?
  [ "$status" -eq 2 ] || fail "--python $bad exited with $status"
  grep -q "not a Python interpreter of an environment" <<<"$err" || fail "--python $bad: $err"
done

# $CONDA_PREFIX comes after the project's .venv/ (often the base environment of every shell) ...
out=$(CONDA_PREFIX=$work/outside lint)
grep -q "TRL 0.21.0 (installed: .venv/" <<<"$out" || fail "\$CONDA_PREFIX beat the project's .venv/: $out"
# ... and decides where the project has none.
mv "$project/.venv" "$work/project-venv"
out=$(CONDA_PREFIX=$work/outside lint)
grep -q "TRL 0.26.0 (installed in \$CONDA_PREFIX: $work/outside/" <<<"$out" || fail "\$CONDA_PREFIX did not decide: $out"

# No environment: the pin (trl>=0.21.0, the newest known release inside it).
out=$(lint)
grep -q "(requirements.txt: trl>=0.21.0; newest known release inside the range)" <<<"$out" ||
  fail "without an environment the pin did not decide: $out"

# An environment without TRL: the pin decides TRL.
mkdir -p "$work/empty/lib/python3.12/site-packages/numpy-2.0.0.dist-info"
out=$(VIRTUAL_ENV=$work/empty lint)
grep -q "(requirements.txt: trl>=0.21.0; newest" <<<"$out" || fail "an environment without TRL: $out"

# setuptools' egg-info metadata (`pip install -e .` of old projects) counts too.
env_with "$work/egg" 0.26.0 egg
out=$(VIRTUAL_ENV=$work/egg lint)
grep -q "TRL 0.26.0 (installed in \$VIRTUAL_ENV: $work/egg/lib/python3.12/site-packages/trl-0.26.0-py3.12.egg-info)" <<<"$out" ||
  fail "egg-info not read: $out"

# The METADATA says the version, whatever the folder is called.
env_with "$work/renamed" 0.26.0
mv "$work/renamed/lib/python3.12/site-packages/trl-0.26.0.dist-info" "$work/renamed/lib/python3.12/site-packages/TRL-0.0.dist-info"
out=$(VIRTUAL_ENV=$work/renamed lint)
grep -q "TRL 0.26.0 (installed in" <<<"$out" || fail "the METADATA's version was not used: $out"

# Two installs of different versions in one environment: which one Python imports is not
# knowable from here, so the pin decides.
env_with "$work/twice" 0.26.0
mkdir -p "$work/twice/lib/python3.12/site-packages/trl-0.21.0.dist-info"
printf 'Name: trl\nVersion: 0.21.0\n' > "$work/twice/lib/python3.12/site-packages/trl-0.21.0.dist-info/METADATA"
out=$(VIRTUAL_ENV=$work/twice lint)
grep -q "(requirements.txt: trl>=0.21.0; newest" <<<"$out" || fail "two installed versions: $out"

# config --show names the environment and the version it gave.
show=$(cd "$project" && VIRTUAL_ENV=$work/outside "$bin" config --show .)
grep -q "^environment: \"$work/outside\"  # chosen by \$VIRTUAL_ENV" <<<"$show" || fail "config --show: $show"
grep -q '^  trl: "0.26.0"  # installed in $VIRTUAL_ENV' <<<"$show" || fail "config --show target: $show"

# The result cache keys on the environment: activating another one changes the findings.
cache=$work/cache
a=$(cd "$project" && VIRTUAL_ENV=$work/outside "$bin" --cache-dir "$cache" --output-format concise . 2>/dev/null)
b=$(cd "$project" && VIRTUAL_ENV=$work/other "$bin" --cache-dir "$cache" --output-format concise . 2>/dev/null)
grep -q "TRL 0.26.0" <<<"$a" || fail "cached run with \$VIRTUAL_ENV=outside: $a"
grep -q "TRL 0.21.0" <<<"$b" || fail "the cache served another environment's findings: $b"
echo "python-env: all cases passed"
