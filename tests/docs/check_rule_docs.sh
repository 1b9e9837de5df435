#!/usr/bin/env bash
# Fails when docs/rules/ differs from what `trl-lint rule --markdown-dir` generates from the rule
# sources. Regenerate with: build/trl-lint rule --markdown-dir docs/rules
set -u
bin=$1
docs=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" rule --markdown-dir "$tmp/rules" || { echo "trl-lint rule --markdown-dir failed"; exit 1; }
if ! diff -r "$tmp/rules" "$docs" > "$tmp/diff"; then
  cat "$tmp/diff"
  echo "docs/rules is stale: run \`build/trl-lint rule --markdown-dir docs/rules\` and commit the result"
  exit 1
fi
exit 0
