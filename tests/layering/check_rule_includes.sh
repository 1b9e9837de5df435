#!/usr/bin/env bash
# Rules read a RuleContext (rules/rule_context.hpp), never the project, a parser, an extractor or
# the evaluator: fails when a C++ file under ROOT/rules/ includes, directly or through the headers
# it includes, one of
#   analyzer/project/*, analyzer/parse/*, analyzer/python/*, analyzer/yaml/*,
#   analyzer/eval/python_eval*.hpp, analyzer/eval/run_builder.hpp, analyzer/eval/version_targets.hpp,
#   analyzer/eval/installed_classes.hpp (it reads and parses an installed library's source)
# (the types rules need live in headers of their own: analyzer/eval/script_summary.hpp,
# analyzer/eval/version_target.hpp). Includes are `#include "path"` from ROOT; <...> are not
# followed.
#
#   check_rule_includes.sh ROOT         check ROOT/rules
#   check_rule_includes.sh --self-test  run the check on made-up trees that break it, and one that
#                                       does not
set -u

forbidden='^analyzer/(project|parse|python|yaml)/|^analyzer/eval/(python_eval[^/]*|run_builder|version_targets|installed_classes)\.hpp$'

# Reads the quoted includes of ROOT/FILE into read_includes["ROOT/FILE"], one a line (each file
# read once).
declare -A read_includes=()
load_includes() {
  local key="$1/$2"
  [ -z "${read_includes[$key]+x}" ] || return 0
  read_includes[$key]=""
  [ -f "$key" ] || return 0
  read_includes[$key]=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$key")
}

# check ROOT: prints each offending file with the forbidden header and the chain that reaches it.
check() {
  local root=$1 status=0 file
  [ -d "$root/rules" ] || { echo "no rules/ folder under $root"; return 2; }
  while IFS= read -r file; do
    local rel=${file#"$root"/}
    # Breadth-first over the included headers, each once, remembering how it was reached.
    local -A via=()
    local queue=("$rel") head=0
    via[$rel]=""
    while [ $head -lt ${#queue[@]} ]; do
      local cur=${queue[$head]}
      head=$((head + 1))
      local inc
      load_includes "$root" "$cur"
      while IFS= read -r inc; do
        [ -n "$inc" ] || continue
        [ -z "${via[$inc]+x}" ] || continue
        via[$inc]=$cur
        if [[ $inc =~ $forbidden ]]; then
          local chain=$inc at=$cur
          while [ "$at" != "$rel" ]; do
            chain="$at -> $chain"
            at=${via[$at]}
          done
          echo "$rel includes $inc (through $rel -> $chain)"
          status=1
          continue
        fi
        queue+=("$inc")
      done <<<"${read_includes[$root/$cur]}"
    done
    unset via
  done < <(find "$root/rules" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.def' \) | sort)
  if [ $status -ne 0 ]; then
    echo "rules read what they need through RuleContext (rules/rule_context.hpp); see CONTRIBUTING.md"
  fi
  return $status
}

self_test() {
  local tmp failed=0
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  # expect NAME EXIT_STATUS TEXT: runs the check on $tmp/NAME and wants that status and TEXT in its output.
  expect() {
    local out rc
    out=$(check "$tmp/$1" 2>&1)
    rc=$?
    if [ $rc -ne "$2" ] || ! grep -qF -- "$3" <<<"$out"; then
      echo "self-test $1: wanted status $2 and \"$3\", got status $rc:"
      echo "$out"
      failed=1
    fi
  }
  mkdir -p "$tmp/direct/rules/config" "$tmp/indirect/rules/support" "$tmp/indirect/analyzer/eval" \
    "$tmp/evaluator/rules" "$tmp/clean/rules/support" "$tmp/clean/analyzer/eval"
  # A rule that includes the project header itself.
  printf '#include "rules/rule.hpp"\n#include "analyzer/project/project.hpp"\n' >"$tmp/direct/rules/config/bad_rule.cpp"
  expect direct 1 "rules/config/bad_rule.cpp includes analyzer/project/project.hpp"
  # One that reaches the YAML resolver through a helper of its own and an analyzer header.
  printf '#include "rules/support/helper.hpp"\n' >"$tmp/indirect/rules/bad_rule.cpp"
  printf '#pragma once\n#include "analyzer/eval/values.hpp"\n' >"$tmp/indirect/rules/support/helper.hpp"
  printf '#pragma once\n#  include "analyzer/yaml/pyyaml_resolver.hpp"  // a comment\n' \
    >"$tmp/indirect/analyzer/eval/values.hpp"
  expect indirect 1 "rules/bad_rule.cpp includes analyzer/yaml/pyyaml_resolver.hpp (through rules/bad_rule.cpp -> rules/support/helper.hpp -> analyzer/eval/values.hpp -> analyzer/yaml/pyyaml_resolver.hpp)"
  # The evaluator, the run builder, the targets' computation and the installed source's reader
  # are the pipeline's.
  printf '#include "analyzer/eval/python_eval.hpp"\n' >"$tmp/evaluator/rules/a.cpp"
  printf '#include "analyzer/eval/run_builder.hpp"\n' >"$tmp/evaluator/rules/b.hpp"
  printf '#include "analyzer/eval/version_targets.hpp"\n' >"$tmp/evaluator/rules/c.cpp"
  printf '#include "analyzer/eval/installed_classes.hpp"\n' >"$tmp/evaluator/rules/d.cpp"
  expect evaluator 1 "rules/a.cpp includes analyzer/eval/python_eval.hpp"
  expect evaluator 1 "rules/b.hpp includes analyzer/eval/run_builder.hpp"
  expect evaluator 1 "rules/c.cpp includes analyzer/eval/version_targets.hpp"
  expect evaluator 1 "rules/d.cpp includes analyzer/eval/installed_classes.hpp"
  # What rules may include: the context, the summary and target types, system headers; an
  # include cycle ends.
  printf '#include <vector>\n#include "rules/support/helper.hpp"\n#include "analyzer/eval/script_summary.hpp"\n' \
    >"$tmp/clean/rules/good_rule.cpp"
  printf '#pragma once\n#include "analyzer/eval/version_target.hpp"\n#include "rules/support/helper.hpp"\n' \
    >"$tmp/clean/rules/support/helper.hpp"
  printf '#pragma once\n#include "analyzer/eval/script_summary.hpp"\n// #include "analyzer/project/project.hpp"\n' \
    >"$tmp/clean/analyzer/eval/version_target.hpp"
  : >"$tmp/clean/analyzer/eval/script_summary.hpp"
  expect clean 0 ""
  [ $failed -eq 0 ] && echo "self-test passed"
  return $failed
}

case "${1:-}" in
  --self-test) self_test ;;
  "") echo "usage: $0 ROOT | --self-test"; exit 2 ;;
  *) check "$1" ;;
esac
