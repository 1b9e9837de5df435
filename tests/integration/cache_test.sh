#!/usr/bin/env bash
# The result cache: hit, miss, invalidation by a changed file and by changed settings, damaged
# entries, where it is written (and where not). TRL_LINT_CACHE_TRACE=1 makes trl-lint say on
# stderr whether the cache served the findings. Usage: cache_test.sh TRL_LINT FIXTURES
set -uo pipefail
bin=$(realpath "$1")
fixtures=$(realpath "$2")
work=$(mktemp -d)
trap 'chmod -R u+rwX "$work" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset TRL_LINT_CACHE_DIR TRL_LINT_NO_CACHE
export TRL_LINT_CACHE_TRACE=1

proj=$work/proj
cp -r "$fixtures/TRL101/yaml_packing_accel_yaml_cp" "$proj"
rm -f "$proj/expected.txt" "$proj/CASE.md"
mkdir -p "$proj/lib"
printf 'import os\n\ndef unrelated(x):\n    return os.path.join(x, "a")\n' > "$proj/lib/unrelated.py"
cache=$work/cache
cd "$proj" || exit 2
# Files older than the cache's records (by more than a second) are taken as recorded when their
# stamp (inode, size, modification and change times) is unchanged; newer ones are always read.
find . -exec touch -d '2020-01-01 00:00:00' {} +
sleep 1.2

# run NAME [ARGS...]: output in $work/NAME.out, stderr in $work/NAME.err, status in $work/NAME.rc.
run() {
  local name=$1
  shift
  "$bin" --output-format concise "$@" > "$work/$name.out" 2> "$work/$name.err"
  echo $? > "$work/$name.rc"
}
fresh() { TRL_LINT_CACHE_TRACE=0 "$bin" --output-format concise --no-cache "$@" 2>/dev/null; }
expect() {  # expect NAME hit|miss
  grep -q "^trl-lint: cache $2 " "$work/$1.err" || { cat "$work/$1.err"; fail "$1: expected a cache $2"; }
}
same_as_fresh() {  # same_as_fresh NAME [ARGS...]
  local name=$1
  shift
  diff <(fresh "$@") "$work/$name.out" || fail "$name: output differs from an analysis without cache"
}

# 1. Miss, then hit with the same findings and exit code.
run first --cache-dir "$cache" .
expect first miss
grep -q "TRL101" "$work/first.out" || fail "the fixture has no TRL101: the test would prove nothing"
[ "$(cat "$work/first.rc")" = 1 ] || fail "first run exit code $(cat "$work/first.rc")"
ls "$cache"/results-*.bin > /dev/null 2>&1 || fail "no cache entry written"
run second --cache-dir "$cache" .
expect second hit
# Unchanged old files are not read on a hit. Printed as concise lines, none is: the entry keeps
# the column of every point the findings name. The full format shows source lines: it reads the
# files the findings point into, and those alone.
read_counts() {  # read_counts FILE: "NOT_READ TOTAL" from the trace line
  grep -o '([0-9]* of [0-9]* files not read)' "$1" | sed -E 's/\(([0-9]+) of ([0-9]+).*/\1 \2/'
}
read -r not_read total <<< "$(read_counts "$work/second.err")"
[ "$not_read" = "$total" ] || fail "a concise hit read $((total - not_read)) of $total files (expected none)"
"$bin" --cache-dir "$cache" --output-format full . > "$work/second_full.out" 2> "$work/second_full.err"
expect second_full hit
read -r not_read total <<< "$(read_counts "$work/second_full.err")"
[ "$not_read" -gt 0 ] && [ "$not_read" -lt "$total" ] || fail "a full-format hit read $((total - not_read)) of $total files (expected those with findings)"
# A content change with the old modification time put back is still seen (the change time moves).
cp "$proj/launch.sh" "$work/launch.orig"
sed -i 's/on 2 GPUs/on 2 gpus/' launch.sh  # same size
touch -d '2020-01-01 00:00:00' launch.sh
run touched --cache-dir "$cache" .
expect touched miss
same_as_fresh touched .
cp "$work/launch.orig" launch.sh
diff "$work/first.out" "$work/second.out" || fail "a cache hit changed the output"
[ "$(cat "$work/second.rc")" = 1 ] || fail "cached run exit code $(cat "$work/second.rc")"
for fmt in full json sarif github; do
  a=$("$bin" --cache-dir "$cache" --output-format $fmt . 2>/dev/null)
  b=$(TRL_LINT_CACHE_TRACE=0 "$bin" --no-cache --output-format $fmt . 2>/dev/null)
  [ "$a" = "$b" ] || fail "--output-format $fmt differs when served from the cache"
done

# 2. A changed YAML invalidates: the finding disappears, then comes back.
yaml=recipes/qwen2.5-0.5b/sft_long.yaml
cp "$yaml" "$work/yaml.orig"
sed -i 's/^packing: true/packing: false/' "$yaml"
run off --cache-dir "$cache" .
expect off miss
grep -q "TRL101" "$work/off.out" && fail "TRL101 still reported after packing was turned off (stale cache)"
same_as_fresh off .
cp "$work/yaml.orig" "$yaml"
run on --cache-dir "$cache" .
expect on miss
grep -q "TRL101" "$work/on.out" || fail "TRL101 not reported after packing was turned back on"
same_as_fresh on .
# The accelerate config of the run takes part too.
sed -i 's/cp_size: 2/cp_size: 1/' recipes/accelerate_configs/context_parallel_2gpu.yaml
run cp1 --cache-dir "$cache" .
expect cp1 miss
same_as_fresh cp1 .
grep -q "TRL101" "$work/cp1.out" && fail "TRL101 still reported with cp_size 1 (stale cache)"
sed -i 's/cp_size: 1/cp_size: 2/' recipes/accelerate_configs/context_parallel_2gpu.yaml

# 3. An ordinary module that no run reaches (deferred by the pre-filter) does not invalidate...
run warm --cache-dir "$cache" .
echo "# edited" >> lib/unrelated.py
run unrelated --cache-dir "$cache" .
expect unrelated hit
same_as_fresh unrelated .
# ...but as soon as it matters (a training name), it does.
echo "from trl import SFTConfig" >> lib/unrelated.py
run related --cache-dir "$cache" .
expect related miss
same_as_fresh related .
# A module that the script imports (deferred, but reached) invalidates when it changes.
sed -i '0,/^from trl import/s//import helpers\nfrom trl import/' scripts/sft.py
printf 'def helper():\n    return 1\n' > scripts/helpers.py
run helper1 --cache-dir "$cache" .
run helper2 --cache-dir "$cache" .
expect helper2 hit
echo "X = 2" >> scripts/helpers.py
run helper3 --cache-dir "$cache" .
expect helper3 miss
same_as_fresh helper3 .
# New and removed files invalidate.
touch new.yaml
run added --cache-dir "$cache" .
expect added miss
rm new.yaml
run removed --cache-dir "$cache" .
expect removed miss
same_as_fresh removed .

# 3b. A miss reads what the analysis needs. Deferred modules that nothing reaches stay unread
# (their records carry over to the new entry); a deferred module that a changed script now
# imports is read then, and evaluated.
cp scripts/sft.py "$work/sft.orig"
printf 'PACK = True\n' > scripts/oldmod.py
printf 'import os\n\nX = os.sep\n' > lib/idle.py
touch -d '2020-01-01 00:00:00' scripts/oldmod.py lib/idle.py
sleep 1.2  # their change time is now: records taken within a second of it are not trusted
run record --cache-dir "$cache" .
expect record miss
sed -i 's/^packing: true/packing: false/' "$yaml"
run needed --cache-dir "$cache" .
expect needed miss
same_as_fresh needed .
grep -Eq '\(([2-9]|[1-9][0-9]+) of [0-9]+ files not read\)' "$work/needed.err" ||
  { cat "$work/needed.err"; fail "a miss read the deferred modules that nothing reaches"; }
grep -q TRL101 "$work/needed.out" && fail "TRL101 with packing off: the test would prove nothing"
run needed2 --cache-dir "$cache" .
expect needed2 hit
# The unread files' records were carried over to the entry the miss wrote: still not read.
grep -Eq '\(([2-9]|[1-9][0-9]+) of [0-9]+ files not read\)' "$work/needed2.err" ||
  { cat "$work/needed2.err"; fail "the records of the files a miss left unread were not carried over"; }
sed -i '0,/^from trl import/s//import oldmod\nfrom trl import/' scripts/sft.py
sed -i 's/^\( *\)\(script_args, training_args, model_args = parser.parse_args_and_config()\)$/\1\2\n\1training_args.packing = oldmod.PACK/' scripts/sft.py
grep -q 'training_args.packing = oldmod.PACK' scripts/sft.py || fail "could not edit the script"
run reached --cache-dir "$cache" .
expect reached miss
same_as_fresh reached .
grep -q TRL101 "$work/reached.out" ||
  { cat "$work/reached.out"; fail "packing set in an unread deferred module was not seen once the script imported it"; }
run reached2 --cache-dir "$cache" .
expect reached2 hit
# The reached module changes: the entry records its content, so this is a miss.
printf 'PACK = False\n' > scripts/oldmod.py
run reached3 --cache-dir "$cache" .
expect reached3 miss
same_as_fresh reached3 .
grep -q TRL101 "$work/reached3.out" && fail "TRL101 still reported after the reached module turned packing off"
cp "$work/sft.orig" scripts/sft.py
cp "$work/yaml.orig" "$yaml"
rm scripts/oldmod.py lib/idle.py
run restored --cache-dir "$cache" .
expect restored miss
same_as_fresh restored .

# 3c. A script whose only training-related name imports a tokenizer class from transformers is
# deferred unless its imports lead to a module the pre-filter keeps. The plain modules those
# imports go through are recorded with their contents: an edit that makes one of them lead to a
# config module turns the script into a training script, and is a miss.
# tok_middle leads|plain: the plain module on the script's way, leading to the config module or not.
tok_middle() {
  if [ "$1" = leads ]; then
    printf 'from tok_cfg import make_args\n\n\ndef build(pack):\n    return make_args(pack)\n' > tok/tok_middle.py
  else
    printf 'def build(pack):\n    return pack\n' > tok/tok_middle.py
  fi
}
# tok_project leads|plain: the script, the module on its way and the config module.
tok_project() {
  mkdir -p tok
  printf 'from transformers import AutoTokenizer\n\nfrom tok_middle import build\n\nargs = build(True)\n' > tok/tok_train.py
  tok_middle "$1"
  printf 'from accelerate import ParallelismConfig\nfrom trl import SFTConfig\n\n\ndef make_args(pack):\n    return SFTConfig(output_dir="o", packing=pack, parallelism_config=ParallelismConfig(cp_size=2))\n' > tok/tok_cfg.py
}
tok_project plain
run tok1 --cache-dir "$cache" .
expect tok1 miss
same_as_fresh tok1 .
grep -q "tok_train.py:.*TRL101" "$work/tok1.out" && fail "TRL101 before the script leads to a config: the test would prove nothing"
run tok2 --cache-dir "$cache" .
expect tok2 hit
tok_middle leads
run tok3 --cache-dir "$cache" .
expect tok3 miss
same_as_fresh tok3 .
grep -q "tok_train.py:.*TRL101" "$work/tok3.out" ||
  { cat "$work/tok3.out"; fail "the tokenizer-only script that now leads to a config was not analysed"; }
rm -r tok
run tok4 --cache-dir "$cache" .
expect tok4 miss
same_as_fresh tok4 .
# On a miss that another file causes, such a script and the plain module on its way are left
# unread (their records vouch for them); following the imports reads them.
tok_project leads
find tok -exec touch -d '2020-01-01 00:00:00' {} +
sleep 1.2
run tokr1 --cache-dir "$cache" .
expect tokr1 miss
grep -q "tok_train.py:.*TRL101" "$work/tokr1.out" || { cat "$work/tokr1.out"; fail "tokr1: no TRL101 in the script"; }
run tokr2 --cache-dir "$cache" .
expect tokr2 hit
echo "# edited" >> "$yaml"
run tokr3 --cache-dir "$cache" .
expect tokr3 miss
same_as_fresh tokr3 .
grep -q "tok_train.py:.*TRL101" "$work/tokr3.out" ||
  { cat "$work/tokr3.out"; fail "a miss lost the finding of a tokenizer-only script left unread"; }
cp "$work/yaml.orig" "$yaml"
rm -r tok
run tokr4 --cache-dir "$cache" .
expect tokr4 miss
same_as_fresh tokr4 .

# 3d. Files the project does not list (ignored by .gitignore, or of a kind trl-lint does not read)
# that a run asks about: whether a launch's accelerate config exists, whether its folder holds
# other YAML files (TRL004 judges only such a folder). The entry records each question with its
# answer and asks again: a file appearing or disappearing there is a miss, even when runs are kept.
mkdir -p local/acc
printf 'local/\n' > .gitignore
printf 'compute_environment: LOCAL_MACHINE\nnum_processes: 2\n' > local/acc/other.yaml
printf '#!/bin/bash\naccelerate launch --config_file local/acc/mine.yaml scripts/sft.py\n' > local_launch.sh
[ -f scripts/sft.py ] || fail "the fixture has no scripts/sft.py: the launch below would name nothing"
run probe1 --cache-dir "$cache" .
expect probe1 miss
grep -q "local_launch.sh:2:.*TRL004.*local/acc/mine.yaml" "$work/probe1.out" ||
  { cat "$work/probe1.out"; fail "probe1: no TRL004 for the missing ignored config"; }
run probe2 --cache-dir "$cache" .
expect probe2 hit
cp local/acc/other.yaml local/acc/mine.yaml
run probe3 --cache-dir "$cache" .
expect probe3 miss
grep -q "TRL004" "$work/probe3.out" && fail "probe3: TRL004 still reported once the ignored config exists (stale cache)"
same_as_fresh probe3 .
run probe4 --cache-dir "$cache" .
expect probe4 hit
# An ignored file no run asks about changes nothing.
echo "notes" > local/notes.txt
printf 'a: 1\n' > local/acc/third.yaml
run probe5 --cache-dir "$cache" .
expect probe5 hit
rm local/notes.txt local/acc/third.yaml
# A run kept from the entry's parts after another file changed: its questions carry over to the
# new entry, and are asked again after it.
echo "# edited" >> "$yaml"
run probe6 --cache-dir "$cache" .
expect probe6 miss
grep -q "^trl-lint: cache kept" "$work/probe6.err" || { cat "$work/probe6.err"; fail "probe6: no runs kept"; }
same_as_fresh probe6 .
echo "# edited again" >> "$yaml"
run probe7 --cache-dir "$cache" .
expect probe7 miss
grep -q "^trl-lint: cache kept" "$work/probe7.err" || { cat "$work/probe7.err"; fail "probe7: no runs kept"; }
rm local/acc/mine.yaml
run probe8 --cache-dir "$cache" .
expect probe8 miss
grep -q "^trl-lint: cache kept" "$work/probe8.err" && fail "probe8: runs kept although a file a run asked about is gone"
same_as_fresh probe8 .
grep -q "TRL004.*local/acc/mine.yaml" "$work/probe8.out" || fail "probe8: no TRL004 once the ignored config is gone"
# The folder no longer holds any other YAML file: the launch is not judged (a partial tree).
rm local/acc/other.yaml
run probe9 --cache-dir "$cache" .
expect probe9 miss
same_as_fresh probe9 .
grep -q "TRL004" "$work/probe9.out" && fail "probe9: TRL004 in a folder with no YAML file"
rm -r local local_launch.sh .gitignore
cp "$work/yaml.orig" "$yaml"
run probe10 --cache-dir "$cache" .
expect probe10 miss
same_as_fresh probe10 .
# A folder the file list shows holding a YAML file holds one, however many other entries it has
# (the file system is looked at only up to 10,000 of them): the cache and a fresh analysis agree.
mkdir big
printf 'a: 1\n' > big/a.yaml
(cd big && seq 1 10050 | sed 's/$/.bin/' | xargs touch)
printf '#!/bin/bash\naccelerate launch --config_file big/missing.yaml scripts/sft.py\n' > big_launch.sh
run big1 --cache-dir "$cache" .
expect big1 miss
same_as_fresh big1 .
grep -q "big_launch.sh:2:.*TRL004.*big/missing.yaml" "$work/big1.out" || { cat "$work/big1.out"; fail "big1: no TRL004"; }
(cd big && seq 10051 18050 | sed 's/$/.bin/' | xargs touch)
run big2 --cache-dir "$cache" .
expect big2 hit
same_as_fresh big2 .
rm -r big big_launch.sh
run big3 --cache-dir "$cache" .
expect big3 miss
same_as_fresh big3 .

# 4. Settings: a different selection is another entry; a configuration file change invalidates.
run sel1 --cache-dir "$cache" --select TRL201 .
expect sel1 miss
grep -q TRL101 "$work/sel1.out" && fail "--select TRL201 served TRL101 (settings not in the key)"
same_as_fresh sel1 --select TRL201 .
run sel2 --cache-dir "$cache" --select TRL201 .
expect sel2 hit
run all --cache-dir "$cache" .
expect all hit
grep -q TRL101 "$work/all.out" || fail "the run without --select lost TRL101"
printf 'ignore: [TRL101]\n' > .trl-lint.yaml
run cfg --cache-dir "$cache" .
expect cfg miss
grep -q TRL101 "$work/cfg.out" && fail "TRL101 reported although the configuration ignores it (stale cache)"
same_as_fresh cfg .
printf 'ignore: [TRL201]\n' > .trl-lint.yaml
run cfg2 --cache-dir "$cache" .
expect cfg2 miss
same_as_fresh cfg2 .
rm .trl-lint.yaml
run nocfg --cache-dir "$cache" .
expect nocfg miss
same_as_fresh nocfg .
# Explicit files (pre-commit) share the whole-project analysis and filter afterwards.
run focus1 --cache-dir "$cache" "$yaml"
run focus2 --cache-dir "$cache" "$yaml"
expect focus2 hit
same_as_fresh focus2 "$yaml"

# 4b. A folder keeps the 8 most recently written entries: ten more invocation shapes (selections)
# leave 8, the newest still a hit, the oldest shapes (the default one, --select TRL201) misses
# with the same findings. Foreign files in the folder stay.
echo "mine" > "$cache/notes.txt"
for code in TRL001 TRL002 TRL003 TRL004 TRL005 TRL102 TRL103 TRL104 TRL105 TRL106; do
  run "shape_$code" --cache-dir "$cache" --select "$code" .
  expect "shape_$code" miss
done
n=$(ls "$cache" | grep -cE '^results-[0-9a-f]{16}\.bin$')
[ "$n" -eq 8 ] || { ls -la "$cache"; fail "$n entries in the cache folder after ten more invocation shapes, want 8"; }
run shape_again --cache-dir "$cache" --select TRL106 .
expect shape_again hit
run shape_old --cache-dir "$cache" --select TRL201 .
expect shape_old miss
same_as_fresh shape_old --select TRL201 .
[ "$(cat "$cache/notes.txt")" = mine ] || fail "pruning touched a file that is not an entry"
rm "$cache/notes.txt"

# 5. Damaged entries: truncated, flipped byte, garbage, empty, a folder in its place.
entry=$(ls "$cache"/results-*.bin | head -1)
damage() {
  for e in "$cache"/results-*.bin; do
    case $1 in
      truncate) head -c 100 "$e" > "$e.t" && mv "$e.t" "$e" ;;
      half) head -c $(($(stat -c %s "$e") / 2)) "$e" > "$e.t" && mv "$e.t" "$e" ;;
      flip) python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[len(b)//2]^=0x55; open(p,'wb').write(b)" "$e" ;;
      garbage) head -c 5000 /dev/urandom > "$e" ;;
      empty) : > "$e" ;;
    esac
  done
}
for how in truncate half flip garbage empty; do
  run "warm-$how" --cache-dir "$cache" .
  damage $how
  run "bad-$how" --cache-dir "$cache" .
  expect "bad-$how" miss
  same_as_fresh "bad-$how" .
  [ "$(cat "$work/bad-$how.rc")" = 1 ] || fail "damaged cache ($how): exit code $(cat "$work/bad-$how.rc")"
  run "again-$how" --cache-dir "$cache" .
  expect "again-$how" hit  # rewritten after the miss
done
[ -n "$entry" ] || fail "no entry to damage"

# 5b. The facts pack: after a miss, unchanged files take their facts from it; a damaged pack is
# not used (every file is parsed), never an error.
run pack-warm --cache-dir "$cache" .
ls "$cache"/facts.bin > /dev/null 2>&1 || fail "no facts pack written"
echo "# comment" >> "$yaml"
run pack-used --cache-dir "$cache" .
expect pack-used miss
same_as_fresh pack-used .
grep -Eq '\(([1-9][0-9]*) files. facts from the cache\)' "$work/pack-used.err" ||
  { cat "$work/pack-used.err"; fail "a miss after a one-line change took no facts from the pack"; }
cp "$work/yaml.orig" "$yaml"
# A pack that was not written into this very folder (copied, restored, committed) is not read.
run pack-home --cache-dir "$cache" .
cp -r "$cache" "$work/copied-cache"
rm -f "$work/copied-cache"/results-*.bin
run pack-copied --cache-dir "$work/copied-cache" .
expect pack-copied miss
same_as_fresh pack-copied .
grep -q '(0 files. facts from the cache)' "$work/pack-copied.err" ||
  { cat "$work/pack-copied.err"; fail "a facts pack copied from another folder was used"; }
run pack-copied2 --cache-dir "$work/copied-cache" .
rm -f "$work/copied-cache"/results-*.bin
run pack-copied3 --cache-dir "$work/copied-cache" .
grep -Eq '\(([1-9][0-9]*) files. facts from the cache\)' "$work/pack-copied3.err" ||
  { cat "$work/pack-copied3.err"; fail "the pack written into the copied folder was not used"; }
for how in truncate flip garbage empty; do
  run "pack-warm-$how" --cache-dir "$cache" .
  for e in "$cache"/facts.bin; do
    case $how in
      truncate) head -c 100 "$e" > "$e.t" && mv "$e.t" "$e" ;;
      flip) python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[len(b)//2]^=0x55; open(p,'wb').write(b)" "$e" ;;
      garbage) head -c 5000 /dev/urandom > "$e" ;;
      empty) : > "$e" ;;
    esac
  done
  rm -f "$cache"/results-*.bin
  run "pack-bad-$how" --cache-dir "$cache" .
  expect "pack-bad-$how" miss
  same_as_fresh "pack-bad-$how" .
  grep -q '(0 files. facts from the cache)' "$work/pack-bad-$how.err" ||
    { cat "$work/pack-bad-$how.err"; fail "a damaged facts pack ($how) was used"; }
done

# 6. An unwritable cache folder: same output, no error.
ro=$work/ro
mkdir -p "$ro" && chmod 555 "$ro"
run ro --cache-dir "$ro/cache" .
same_as_fresh ro .
[ "$(cat "$work/ro.rc")" = 1 ] || fail "unwritable cache folder: exit code $(cat "$work/ro.rc")"
grep -vE '^(trl-lint: cache|Checked [0-9]+ files?)' "$work/ro.err" | grep -q . && { cat "$work/ro.err"; fail "unwritable cache folder: stderr"; }
# A file where the cache folder should be.
: > "$work/notadir"
run notadir --cache-dir "$work/notadir" .
same_as_fresh notadir .

# 7. Where it is written: default at the project root with a .gitignore of `*`, never analysed.
rm -rf .trl-lint_cache
run default1 .
[ -f .trl-lint_cache/.gitignore ] || fail "no .gitignore in the default cache folder"
grep -qx '\*' .trl-lint_cache/.gitignore || fail "the cache .gitignore does not ignore everything"
[ -f .trl-lint_cache/CACHEDIR.TAG ] || fail "no CACHEDIR.TAG in the default cache folder"
ls .trl-lint_cache/results-*.bin > /dev/null 2>&1 || fail "no entry in the default cache folder"
run default2 .
expect default2 hit
run default-subdir --cache-dir "$proj/mycache" .
run default-subdir2 --cache-dir "$proj/mycache" .
expect default-subdir2 hit   # the cache folder inside the tree is not analysed itself
"$bin" --no-cache --output-format json . 2>/dev/null | grep -q 'trl-lint_cache\|mycache' && fail "a cache folder was analysed"
rm -rf .trl-lint_cache mycache
# --no-cache and TRL_LINT_NO_CACHE write nothing.
run none1 --no-cache .
run none2 -n .
TRL_LINT_NO_CACHE=1 run none3 .
[ ! -e .trl-lint_cache ] || fail "--no-cache / TRL_LINT_NO_CACHE wrote a cache"
grep -q "cache" "$work/none1.err" "$work/none3.err" && fail "the cache was consulted with --no-cache"
# TRL_LINT_CACHE_DIR, and `cache-dir` in the configuration (relative to its folder).
TRL_LINT_CACHE_DIR=$work/envcache run env1 .
ls "$work/envcache"/results-*.bin > /dev/null 2>&1 || fail "TRL_LINT_CACHE_DIR not used"
printf 'cache-dir: ../cfgcache\n' > .trl-lint.yaml
run cfgdir .
ls "$work/cfgcache"/results-*.bin > /dev/null 2>&1 || fail "cache-dir from the configuration not used"
run clidir --cache-dir "$work/clicache" .
ls "$work/clicache"/results-*.bin > /dev/null 2>&1 || fail "--cache-dir does not win over the configuration"
printf 'cache-dir: ""\n' > .trl-lint.yaml
"$bin" . > /dev/null 2>&1
[ $? = 2 ] || fail "an empty cache-dir is not a configuration error"
rm .trl-lint.yaml
[ ! -e .trl-lint_cache ] || fail "a cache was written at the default place although another was chosen"
# Views, --fix, --diff and --stdin-filename never use the cache.
for c in "runs ." "graph ." "--diff ." "--stdin-filename $yaml ."; do
  # shellcheck disable=SC2086
  "$bin" $c < "$yaml" > /dev/null 2> "$work/view.err"
  grep -q '^trl-lint: cache' "$work/view.err" && fail "'trl-lint $c' used the cache"
done
[ ! -e .trl-lint_cache ] || fail "a view wrote the cache"

# JSON configurations Python code names (read outside discovery): the analysis is stored; a hit
# needs the same bytes in each JSON file read, and each name finding (or missing) the same file.
jproj=$work/jproj
cp -r "$fixtures/dataflow/parse_json_file" "$jproj"
rm -f "$jproj/expected.txt" "$jproj/CASE.md"
mkdir -p "$jproj/.git"
cd "$jproj" || exit 2
find . -exec touch -d '2020-01-01 00:00:00' {} +
jcache=$work/jcache
run json1 --cache-dir "$jcache" .
expect json1 miss
grep -q 'configs/sft.json:.*TRL101' "$work/json1.out" || fail "json: the fixture has no TRL101 in its JSON config"
run json2 --cache-dir "$jcache" .
expect json2 hit
diff "$work/json1.out" "$work/json2.out" || fail "json: a hit changed the output"
sed -i 's/"packing": true/"packing": false/' configs/sft.json
grep -q '"packing": false' configs/sft.json || fail "json: the edit did not apply"
run json3 --cache-dir "$jcache" .
expect json3 miss
same_as_fresh json3 .
grep -q 'TRL101' "$work/json3.out" && fail "json: TRL101 stayed after packing was turned off"
run json4 --cache-dir "$jcache" .
expect json4 hit
# The project root is tried before the script's folder: moved below sub/, the script finds
# sub/configs/sft.json (a miss: the script moved); a configs/sft.json appearing at the root then
# takes its place, which only the recorded question "does the root's configs/sft.json exist?" shows.
mkdir -p sub && mv train.py configs sub/
run json5 --cache-dir "$jcache" .
expect json5 miss
same_as_fresh json5 .
run json6 --cache-dir "$jcache" .
expect json6 hit
mkdir -p configs
printf '{\n  "output_dir": "out",\n  "packing": true\n}\n' > configs/sft.json
run json7 --cache-dir "$jcache" .
expect json7 miss
same_as_fresh json7 .
grep -q '^configs/sft.json:.*TRL101' "$work/json7.out" || fail "json: the JSON at the root did not take the place of sub/'s"
cd "$proj" || exit 2

# An environment inside the project (.venv/) is not a project file, but the versions installed in
# it are the targets: a library upgraded in place is a miss, and no kept run is reused.
venv=$work/venv
cp -r "$fixtures/TRL001/installed_version_beats_pin" "$venv"
vcache=$work/vcache
site=$venv/.venv/lib/python3.11/site-packages
cd "$venv" || exit 2
run venv1 --cache-dir "$vcache" .
expect venv1 miss
grep -q 'num_generations_eval' "$work/venv1.out" || fail "venv: the field TRL 0.21.0 lacks is not reported"
run venv2 --cache-dir "$vcache" .
expect venv2 hit
# An upgrade in place: pip writes the new release's metadata folder (its METADATA says the version).
mv "$site/trl-0.21.0.dist-info" "$site/trl-0.26.0.dist-info"
printf 'Metadata-Version: 2.1\nName: trl\nVersion: 0.26.0\n' > "$site/trl-0.26.0.dist-info/METADATA"
run venv3 --cache-dir "$vcache" .
expect venv3 miss
grep -q 'cache kept' "$work/venv3.err" && fail "venv: runs judged against the old installed version were kept"
same_as_fresh venv3 .
grep -q 'num_generations_eval' "$work/venv3.out" && fail "venv: still judged against the old installed version"
cd "$proj" || exit 2

# Columns count code points, not bytes: a finding after non-ASCII text on its line has the same
# column from the cache, unread, as from a fresh analysis (concise, JSON, GitHub).
wide=$work/wide
cp -r "$fixtures/TRL001/yaml_typo_with_suggestion" "$wide"
rm -f "$wide/expected.txt"
rm -rf "$wide/.trl-lint_cache"
sed -i 's/ --lerning_rate/ --run_name "résumé-ünïcode" --lerning_rate/' "$wide/launch.sh"
grep -q 'résumé-ünïcode" --lerning_rate' "$wide/launch.sh" || fail "wide: the non-ASCII text was not put before the flag"
# A file trl-lint cannot read as text (NUL bytes: TRL902 at 1:1, no columns recorded) is read
# again on a hit; the hit still serves.
printf 'a: 1\0\n' > "$wide/binary.yaml"
find "$wide" -exec touch -d '2020-01-01 00:00:00' {} +
sleep 1.2  # their change times are now: a record taken within a second of them would read them
wcache=$work/wcache
cd "$wide" || exit 2
run wide1 --cache-dir "$wcache" .
expect wide1 miss
grep -q '^launch.sh:2:[0-9]*: TRL001' "$work/wide1.out" || fail "wide: the typo flag after non-ASCII text is not reported"
grep -q '^binary.yaml:1:1: TRL902' "$work/wide1.out" || fail "wide: the file with NUL bytes is not reported"
for fmt in concise json github json-lines; do
  a=$("$bin" --cache-dir "$wcache" --output-format $fmt . 2> "$work/wide_$fmt.err")
  expect "wide_$fmt" hit
  read -r not_read total <<< "$(read_counts "$work/wide_$fmt.err")"
  [ -n "$total" ] || fail "wide: no trace of what a $fmt hit read"
  [ "$not_read" = $((total - 1)) ] || fail "wide: a $fmt hit read $((total - not_read)) files (expected binary.yaml alone)"
  b=$(TRL_LINT_CACHE_TRACE=0 "$bin" --no-cache --output-format $fmt . 2>/dev/null)
  [ "$a" = "$b" ] || fail "wide: --output-format $fmt differs when served from the cache without the texts"
done
# A file with findings changed behind the entry's back but keeping its stamp cannot be told
# apart (as for every unread file); one whose stamp moved is read again: a miss.
printf '\n' >> launch.sh
run wide2 --cache-dir "$wcache" .
expect wide2 miss
same_as_fresh wide2 .
cd "$proj" || exit 2

echo "ok: cache hit, miss, invalidation, files outside the project, settings, damage, placement, JSON configs, installed versions"
