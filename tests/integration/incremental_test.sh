#!/usr/bin/env bash
# Judging again from the parts the result cache keeps (analyzer/pipeline/rejudge.hpp): after each of
# a chain of edits to a copy of every fixture project, the findings served through the cache
# (only the runs and scripts that read a changed file judged again) must be those of an analysis
# without cache, to the byte, in the json format (notes, related locations, fixes). Edits: a value
# flipped (true/false, a number), a comment line added, the first line deleted (every span after
# it moves), one file at a time, each analysis starting from the parts the previous one kept.
# Then a file added, and a version pin changed: nothing is kept. Usage: incremental_test.sh
# TRL_LINT FIXTURES
set -uo pipefail
bin=$(realpath "$1")
fixtures=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset TRL_LINT_CACHE_DIR TRL_LINT_NO_CACHE
export TRL_LINT_CACHE_TRACE=1

cached() { "$bin" --output-format json --cache-dir "$work/cache" . 2> "$work/err"; }
fresh() { TRL_LINT_CACHE_TRACE=0 "$bin" --output-format json --no-cache . 2>/dev/null; }
# The runs kept by the last cached analysis ("kept K of N runs"), or nothing when none were.
kept_runs() { sed -nE 's/^trl-lint: cache kept ([0-9]+) of ([0-9]+) runs.*/\1 \2/p' "$work/err"; }

projects=0 analyses=0 incremental=0 kept_some=0
# Under the sanitizers (make test-asan) every run is several times slower: a quarter of the fixture
# projects, two files of each, and the thresholds scaled down alike.
stride=1 per_project=6
[ -n "${TRL_LINT_SANITIZED:-}" ] && stride=4 per_project=2
scale=$((stride * 6 / per_project))
index=0
check() {  # check WHAT: the cached analysis of the current folder equals a fresh one
  local a b
  a=$(cached)
  b=$(fresh)
  analyses=$((analyses + 1))
  [ "$a" = "$b" ] || {
    diff <(echo "$b") <(echo "$a") | head -20
    fail "$1: the findings judged from the kept parts differ from an analysis without cache"
  }
  local k
  k=$(kept_runs)
  if [ -n "$k" ]; then
    incremental=$((incremental + 1))
    [ "${k%% *}" -gt 0 ] && kept_some=$((kept_some + 1))
  fi
  return 0
}

for dir in "$fixtures"/*/*/; do
  index=$((index + 1))
  [ $((index % stride)) = 0 ] || continue
  name=${dir#"$fixtures"/}
  proj=$work/proj
  rm -rf "$proj" "$work/cache"
  cp -r "$dir" "$proj"
  rm -f "$proj/expected.txt" "$proj/CASE.md"
  cd "$proj" || exit 2
  check "$name (first analysis)"
  mapfile -t files < <(find . -type f \( -name '*.py' -o -name '*.yaml' -o -name '*.yml' -o -name '*.sh' \
    -o -name '*.slurm' -o -name 'Makefile' -o -name '*.md' \) ! -name 'requirements*' ! -name 'pyproject.toml' |
    sort | head -"$per_project")
  for f in "${files[@]}"; do
    # A version pin in the file: it is judged whole again, which the last part of this test checks.
    grep -qiE '^(trl|transformers|accelerate)[ =<>~!]' "$f" && continue
    if grep -qE '\b(true|false)\b' "$f"; then
      sed -i -E '0,/\b(true|false)\b/{s/\btrue\b/TMPFALSE/;s/\bfalse\b/true/;s/TMPFALSE/false/}' "$f"
      check "$name: $f, a boolean flipped"
    fi
    if grep -qE '\b[0-9]+\b' "$f"; then
      sed -i -E '0,/\b[0-9]+\b/s/\b([0-9]+)\b/\17/' "$f"
      check "$name: $f, a number changed"
    fi
    echo "# edited" >> "$f"
    check "$name: $f, a comment line added"
    sed -i '1d' "$f"
    check "$name: $f, its first line deleted"
  done
  projects=$((projects + 1))
  cd "$work" || exit 2
done

[ "$projects" -gt $((200 / stride)) ] || fail "only $projects fixture projects"
# The parts were used, and kept something, in most of the analyses after an edit.
[ "$incremental" -gt $((500 / scale)) ] || fail "only $incremental of $analyses analyses were judged from kept parts"
[ "$kept_some" -gt $((100 / scale)) ] || fail "only $kept_some analyses kept some run"

# Edits that move a run's parts between files. A project of two launch files sharing one
# accelerate config and one script, a module the script imports, and an entry script no launch starts.
proj=$work/proj
rm -rf "$proj" "$work/cache"
mkdir -p "$proj"
cd "$proj" || exit 2
printf 'compute_environment: LOCAL_MACHINE\ndistributed_type: NO\nnum_machines: 1\n' > single.yaml
printf 'accelerate launch --config_file single.yaml --num_processes 1 train.py --config a.yaml\n' > launch_a.sh
printf 'accelerate launch --config_file single.yaml train.py --config b.yaml\n' > launch_b.sh
printf 'packing: true\nmax_seq_length: 1024\n' > a.yaml
printf 'packing: false\n' > b.yaml
printf 'from trl import SFTConfig, SFTTrainer, TrlParser\nfrom helpers import model_name\n\nparser = TrlParser(SFTConfig)\nargs = parser.parse_args_and_config()[0]\nSFTTrainer(model=model_name(), args=args).train()\n' > train.py
printf 'def model_name():\n    return "Qwen/Qwen2.5-0.5B"\n' > helpers.py
printf 'from trl import SFTConfig\n\nSFTConfig(output_dir="o", max_seq_length=8)\n' > other.py
check "shared config (first analysis)"
grep -q '"TRL003"' <(fresh) || fail "no TRL003 for distributed_type: NO while launch_b passes no --num_processes"
# The launch without --num_processes gets it: launch_a's run is kept, and what it says of the
# shared config (it passes the flag) decides with launch_b's new run that TRL003 goes.
sed -i 's/single.yaml train.py/single.yaml --num_processes 2 train.py/' launch_b.sh
check "shared config: the other launch passes --num_processes"
[ "$(kept_runs)" = "1 2" ] || fail "expected launch_a's run kept, got: $(kept_runs)"
grep -q '"TRL003"' <(fresh) && fail "TRL003 still reported when every launch passes --num_processes"
# launch_b starts other.py instead: train.py is still launched by launch_a; other.py no longer runs
# on its own. Then launch_b goes: nothing launches other.py, which runs on its own again.
sed -i 's/ train.py / other.py /' launch_b.sh
check "a launch starts another script"
printf '# nothing\n' > launch_b.sh
check "a launch line removed"
# The module the script imports changes: the script is evaluated again, the launches too.
printf 'def model_name():\n    return "Qwen/Qwen2.5-1.5B"\n' > helpers.py
check "a module a script imports changed"
# The script's trainer YAML of launch_a renamed away and back.
mv a.yaml a2.yaml && printf 'packing: true\n' > a.yaml
check "a trainer YAML rewritten"
cd "$work" || exit 2

# Dependencies no run records (found by review). (a) A settings module (configs, no trainer) is no
# entry script while another file imports it: the importer's edit decides it, both ways.
rm -rf "$proj" "$work/cache"
cp -r "$fixtures/dataflow/imported_settings_module_not_a_run" "$proj"
rm -f "$proj/expected.txt" "$proj/CASE.md"
cd "$proj" || exit 2
cp train.py "$work/train.importing"
printf 'from trl import SFTConfig, SFTTrainer\nargs = SFTConfig(output_dir="o", packing=False)\nSFTTrainer(model="Qwen/Qwen2.5-0.5B", args=args).train()\n' > train.py
check "settings module, not imported (first analysis)"
grep -q '"TRL101"' <(fresh) || fail "configs.py not imported: no TRL101 of its own, the case proves nothing"
cp "$work/train.importing" train.py
check "settings module, now imported"
grep -q '"TRL101"' <(fresh) && fail "configs.py imported: TRL101 still there, the case proves nothing"
printf 'from trl import SFTConfig, SFTTrainer\nargs = SFTConfig(output_dir="o", packing=False)\nSFTTrainer(model="Qwen/Qwen2.5-0.5B", args=args).train()\n' > train.py
check "settings module, no longer imported"
cd "$work" || exit 2
# (b) A module a script imports that could not be read (not UTF-8) becomes readable: the import of
# it was recorded nowhere; and back.
rm -rf "$proj" "$work/cache"
mkdir -p "$proj"
cd "$proj" || exit 2
printf 'PACK = True\nCP = 2\n# caf\xe9\n' > helper.py
printf 'from accelerate import ParallelismConfig\nfrom trl import SFTConfig, SFTTrainer\nimport helper\nargs = SFTConfig(output_dir="o", packing=helper.PACK, pad_to_multiple_of=4,\n                 parallelism_config=ParallelismConfig(cp_size=helper.CP, dp_shard_size=1))\nSFTTrainer(model="Qwen/Qwen2.5-0.5B", args=args).train()\n' > train.py
printf 'accelerate launch --num_processes 2 train.py\n' > launch.sh
check "unreadable module (first analysis)"
printf 'PACK = True\nCP = 2\n' > helper.py
check "unreadable module made readable"
grep -q '"TRL101"' <(fresh) || fail "readable helper: no TRL101, the case proves nothing"
printf 'PACK = True\nCP = 2\n# caf\xe9\n' > helper.py
check "readable module made unreadable"
cd "$work" || exit 2
# (c) A requirements file that pins nothing itself but includes another (`-r`): changing the include
# changes the versions every run is judged against.
rm -rf "$proj" "$work/cache"
cp -r "$fixtures/TRL501/yaml_max_seq_length_range_pin" "$proj"
rm -f "$proj/expected.txt" "$proj/CASE.md"
cd "$proj" || exit 2
mkdir -p requirements
printf 'trl==0.12.0\ntransformers==4.46.0\naccelerate==1.0.0\n' > requirements/old.txt
printf 'trl==0.19.1\ntransformers==4.53.3\naccelerate==1.9.0\n' > requirements/new.txt
printf -- '-r requirements/old.txt\n' > requirements.txt
check "pin include (first analysis)"
printf -- '-r requirements/new.txt\n' > requirements.txt
check "pin include changed"
grep -q '"TRL501"' <(fresh) || fail "the include of trl 0.19.1 gives no TRL501: the case proves nothing"
[ -z "$(kept_runs)" ] || fail "parts were kept after a requirements include changed"
cd "$work" || exit 2

# Nothing is kept when a file is added (an import or a path may resolve to it), or when a version
# pin changes (it sets the versions of runs whose files did not change).
proj=$work/proj
rm -rf "$proj" "$work/cache"
cp -r "$fixtures/TRL501/yaml_max_seq_length_range_pin" "$proj"
cd "$proj" || exit 2
check "pins (first analysis)"
grep -q 'TRL501' <(fresh) || fail "the pin fixture has no TRL501: the pin change would prove nothing"
echo 'x = 1' > added.py
check "a file added"
[ -z "$(kept_runs)" ] || fail "parts were kept after a file was added"
# trl 0.15: `max_seq_length` not yet deprecated, so the finding goes.
sed -i 's/^trl>=0.19.1/trl==0.15.2/' requirements.txt
check "a pin changed"
[ -z "$(kept_runs)" ] || fail "parts were kept after a version pin changed"
grep -q 'TRL501' <(fresh) && fail "TRL501 still reported for trl 0.15.2: the pin change would prove nothing"
echo "# edited" >> "$(find . -name '*.yaml' | sort | head -1)"
check "a YAML file edited after the pin"
[ -n "$(kept_runs)" ] || fail "no parts kept after an edit of a YAML file"

echo "OK: $projects projects, $analyses analyses, $incremental judged from kept parts ($kept_some keeping some run)"
