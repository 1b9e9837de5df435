#!/usr/bin/env bash
# scripts/new-rule in a temporary copy of the repository: the scaffolded rule compiles into the
# library and the binary, `trl-lint rule` documents it, ctest picks up its cases, the silent case
# passes and the firing one fails until the check is written; bad arguments and a taken
# code are refused. Only trl-lint is built in the copy (ccache makes the unchanged files cheap),
# with the Release build type.
set -euo pipefail
src=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
repo=$tmp/repo
mkdir -p "$repo"
cp -r "$src"/CMakeLists.txt "$src"/.clang-format "$src"/.clang-tidy "$src"/analyzer "$src"/rules "$src"/scripts "$src"/tests "$src"/bench "$src"/tools "$src"/pyproject.toml "$repo"/
mkdir -p "$repo/fixtures" "$repo/grammars"
ln -s "$src/grammars/node_modules" "$repo/grammars/node_modules"
cp -r "$src/fixtures/example" "$repo/fixtures/"
fail() { echo "FAIL: $*"; exit 1; }

cd "$repo"
out=$(scripts/new-rule TRL399 scaffold-check-rule)
echo "$out"
f=rules/batch/scaffold_check_rule.cpp
[ -f "$f" ] || fail "$f not created"
grep -q 'const RuleInfo kInfo{"TRL399", "scaffold-check-rule", Severity::Error' "$f" || fail "RuleInfo missing"
for h in '## What it does' '## Why is this bad?' '## Example' '## Use instead' '## References'; do
  grep -qF "$h" "$f" || fail "doc section '$h' missing"
done
grep -q 'class ScaffoldCheckRule final : public Rule' "$f" || fail "Rule class missing"
[ "$(grep -c '^TRL_RULE(TRL399, scaffold_check_rule)$' rules/rules.def)" -eq 1 ] || fail "no line in rules/rules.def"
# In code order: after TRL306's line, before TRL401's.
grep -A1 '^TRL_RULE(TRL306, ' rules/rules.def | grep -q '^TRL_RULE(TRL399, ' || fail "rules/rules.def: not in code order"
cases=tests/cases/TRL399.md
[ -f "$cases" ] || fail "$cases not created"
[ "$(python3 tests/cases/mdtest.py list "$cases")" = "$(printf 'fires_example\nsilent_example')" ] || fail "cases: $(python3 tests/cases/mdtest.py list "$cases")"
for x in launch.sh recipes/train.yaml recipes/accelerate.yaml scripts/train.py; do
  [ "$(grep -c "^\`\`\`[a-z]* $x\$" "$cases")" -eq 2 ] || fail "$x is not written in both cases"
done
[ "$(grep -c '  #> TRL399$' "$cases")" -eq 1 ] || fail "the firing case does not mark one line"
clang-format --dry-run -Werror "$f" || fail "scaffolded rule is not clang-formatted"

# Every family's folder comes from rules/families.def: TRL0xx in rules/config, TRL5xx in rules/api.
scripts/new-rule TRL099 scaffold-config-rule >/dev/null
[ -f rules/config/scaffold_config_rule.cpp ] || fail "TRL099 not filed under rules/config"
scripts/new-rule TRL599 scaffold-api-rule >/dev/null
[ -f rules/api/scaffold_api_rule.cpp ] || fail "TRL599 not filed under rules/api"

# Refusals: a taken code, a taken name, a malformed code or name, a pipeline code (TRL9xx)
# (exit 2, nothing changed).
before=$(cat rules/rules.def)
for args in "TRL399 other-name" "TRL398 scaffold-check-rule" "TRL39 x" "XYZ123 x" "TRL397 Bad_Name" "TRL999 file-problem"; do
  set +e; msg=$(scripts/new-rule $args 2>&1); st=$?; set -e
  [ "$st" -eq 2 ] || fail "new-rule $args: exit $st, expected 2 ($msg)"
done
[ "$(cat rules/rules.def)" = "$before" ] || fail "a refused scaffold changed the table of rules"
[ -e tests/cases/TRL398.md ] && fail "a refused scaffold created cases"

# Build only the library and the binary, as a Release build (-O3 -DNDEBUG): the suite's own
# builds are RelWithDebInfo, and GCC warns differently at -O3, so this copy is also what keeps the
# Release build free of warnings (-Werror) in CI.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target trl-lint -j 2 >build.log 2>&1 || { tail -50 build.log; fail "build failed"; }
# Capture before matching: with pipefail, `trl-lint ... | grep -q` fails at random when grep exits
# on its match and trl-lint is killed by SIGPIPE writing the rest (CI saw exactly that).
doc=$(build/trl-lint rule TRL399)
grep -q '^# TRL399 scaffold-check-rule' <<<"$doc" || fail "trl-lint rule TRL399"
# The doc skeleton follows the convention of docs/rule-examples (every block names its file) and
# its Example does not fire yet: that test fails until the rule and its Example are written.
set +e; msg=$(python3 tests/docs/check_rule_examples.py build/trl-lint TRL399); st=$?; set -e
[ "$st" -eq 1 ] && grep -qF 'TRL399 Example (recipes/train.yaml, launch.sh, recipes/accelerate.yaml): TRL399 is not reported; found: nothing' <<<"$msg" ||
  fail "the scaffolded doc's Example should be a project that does not fire yet ($st: $msg)"
all=$(build/trl-lint rule --all)
grep -q '^TRL399  scaffold-check-rule' <<<"$all" || fail "rule --all lacks TRL399"
grep -q '^TRL599  scaffold-api-rule' <<<"$all" || fail "rule --all lacks TRL599"
build/trl-lint --select TRL399 --output-format concise fixtures/example >/dev/null || fail "--select TRL399 (inert rule) did not exit 0"

# ctest sees the cases; the silent one passes, the firing one waits for the check.
tests=$(cd build && ctest -N -R '^cases/TRL399$')
echo "$tests" | grep -q 'cases/TRL399' || fail "ctest does not list cases/TRL399"
python3 tests/cases/mdtest.py check build/trl-lint "$cases" silent_example || fail "silent case"
set +e; msg=$(python3 tests/cases/mdtest.py check build/trl-lint "$cases" fires_example); st=$?; set -e
[ "$st" -eq 1 ] && grep -qF "recipes/train.yaml: marked [(1, 'TRL399')], the snapshot has nothing" <<<"$msg" ||
  fail "the firing case should fail until the rule is written ($st: $msg)"
echo "new-rule scaffold OK"
