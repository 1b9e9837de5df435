#!/usr/bin/env bash
# The case runner (mdtest.py) on made-up case files: a right case passes; a wrong mark, a wrong
# snapshot line, a missing snapshot and a finding in a base's file each fail; `update` writes back
# what trl-lint says and is then stable; materialized files keep their exact bytes (byte order mark,
# no final newline, marks removed, a mark at the end of a file).
# Usage: self_test.sh TRL_LINT
set -u
unset VIRTUAL_ENV CONDA_PREFIX
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
mdtest=$here/mdtest.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TRL_LINT_CACHE_DIR=$work/cache
fail() { echo "FAIL: $*"; exit 1; }
expect_fail() {  # what, grep pattern, file
  local out
  out=$(python3 "$mdtest" check "$bin" "$3" 2>&1) && fail "$1: passed"
  grep -q -- "$2" <<<"$out" || { echo "$out"; fail "$1: no \`$2\` in the report"; }
}

cat > "$work/bases.md" <<'EOF'
# Base projects

## launch-train

```bash launch.sh
#!/bin/bash
accelerate launch --config_file fsdp.yaml train.py
```

```python train.py
from trl import SFTConfig, SFTTrainer

SFTTrainer(model="Qwen/Qwen2.5-0.5B", args=SFTConfig(output_dir="out")).train()
```
EOF
# A case without its snapshot: `update` must write it.
cat > "$work/T.md" <<'EOF'
# T

## exponent

An integer written `1e8`.

base: launch-train

```yaml fsdp.yaml
compute_environment: LOCAL_MACHINE
distributed_type: FSDP
fsdp_config:
  fsdp_auto_wrap_policy: SIZE_BASED_WRAP
  fsdp_min_num_params: 1e8
num_processes: 2
```

## silent

Nothing to report.

base: launch-train

```yaml fsdp.yaml
distributed_type: FSDP
num_processes: 2
```
EOF
expect_fail "a case with findings and neither marks nor snapshot" "golden mismatch" "$work/T.md"
python3 "$mdtest" update "$bin" "$work/T.md" >/dev/null || fail "update"
grep -q '^  fsdp_min_num_params: 1e8  #> TRL002$' "$work/T.md" || fail "update did not mark the line"
grep -q '^```snapshot$' "$work/T.md" || fail "update wrote no snapshot"
grep -q '^warning\[TRL002\]' "$work/T.md" || fail "the snapshot is not the full output"
grep -q '^--- the fixes (trl-lint --diff) ---$' "$work/T.md" || fail "the snapshot has no fixes"
python3 "$mdtest" check "$bin" "$work/T.md" >/dev/null || fail "an updated file fails"
cp "$work/T.md" "$work/T.good"
python3 "$mdtest" update "$bin" "$work/T.md" >/dev/null
cmp -s "$work/T.md" "$work/T.good" || fail "a second update changed the file"

sed 's/  #> TRL002$/  #> TRL003/' "$work/T.good" > "$work/T.md"
expect_fail "a wrong mark" "marked \[(5, 'TRL003')\], the snapshot has \[(5, 'TRL002')\]" "$work/T.md"
sed 's/^  fsdp_min_num_params: 1e8  #> TRL002$/  fsdp_min_num_params: 1e8/' "$work/T.good" > "$work/T.md"
expect_fail "a missing mark" "marked nothing" "$work/T.md"
sed 's/= help: write `100000000`/= help: write `1`/' "$work/T.good" > "$work/T.md"
expect_fail "a changed help line" "full-output mismatch" "$work/T.md"
sed 's/^Nothing to report.$/Nothing to report.\n\n```snapshot\nerror[TRL999]: nothing\n```/' "$work/T.good" > "$work/T.md"
expect_fail "a snapshot on a silent case" "a project without findings" "$work/T.md"
# The finding's file in the base instead: it cannot be marked.
mkdir "$work/b"
{ cat "$work/bases.md"; cat <<'EOF'

```yaml fsdp.yaml
distributed_type: FSDP
fsdp_config:
  fsdp_min_num_params: 1e8
```
EOF
} > "$work/b/bases.md"
awk '/^## silent/{exit} {print}' "$work/T.good" | sed '/^```yaml fsdp.yaml$/,/^```$/d' > "$work/b/T.md"
expect_fail "a finding in a base's file" "a file of a base" "$work/b/T.md"
python3 "$mdtest" update "$bin" "$work/b/T.md" > "$work/out" 2>&1 && fail "update marked a base's file"
grep -q "write that file in the case" "$work/out" || fail "update did not say why"

# Exact bytes, and the files the golden scripts read.
mkdir -p "$work/m"
cat > "$work/m/B.md" <<'EOF'
# B

## bytes

args: --select TRL9

```yaml a.yaml
x: [1  #> TRL903
```

```yaml b.yaml bom noeol
key: value
```

```yaml c.yaml
a: "open
#> TRL903
```

```toml .trl-lint.yaml
```
EOF
python3 "$mdtest" materialize "$work/out-tree" "$work/m" || fail "materialize"
p=$work/out-tree/B/bytes
[ "$(cat "$p/a.yaml")" = "x: [1" ] || fail "the mark stayed in a.yaml"
cmp -s "$p/b.yaml" <(printf '\xef\xbb\xbfkey: value') || fail "bom/noeol: $(od -c "$p/b.yaml" | head -2)"
cmp -s "$p/c.yaml" <(printf 'a: "open\n') || fail "the end mark stayed in c.yaml"
[ -f "$p/.trl-lint.yaml" ] && ! [ -e "$p/.trl-lint.toml" ] || fail "a case with its own root marker got another"
[ "$(cat "$p/ARGS")" = "--select TRL9" ] || fail "ARGS"
[ -f "$p/expected.txt" ] && ! [ -s "$p/expected.txt" ] || fail "expected.txt of a case without snapshot"
[ "$(cat "$p/CASE.md")" = "" ] || fail "CASE.md holds the directives: $(cat "$p/CASE.md")"
echo "mdtest self-test: ok"
