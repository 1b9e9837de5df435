#!/usr/bin/env bash
# One version number: pyproject.toml's `version` is what `trl-lint --version` prints, the VS Code
# extension's package.json version, and a heading of CHANGELOG.md (`## X.Y.Z ...`, or "X.Y.Z in
# development" under Unreleased). Built from a git checkout, --version also names the commit it
# was built from (`trl-lint X.Y.Z (abc1234 YYYY-MM-DD)`), a commit of that checkout.
# Usage: version_test.sh TRL_LINT_BINARY SOURCE_DIR
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
. "$src/tests/integration/lib.sh"

version=$(sed -n 's/^version = "\([0-9.]*\)"$/\1/p' "$src/pyproject.toml")
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "pyproject.toml: no version = \"X.Y.Z\" line"

out=$("$bin" --version)
[[ $out =~ ^trl-lint\ ([0-9.]+)(\ \(([0-9a-f]+)\ ([0-9]{4}-[0-9]{2}-[0-9]{2})\))?$ ]] \
  || fail "trl-lint --version: '$out' is not 'trl-lint X.Y.Z' or 'trl-lint X.Y.Z (commit date)'"
expect_eq "the version of trl-lint --version" "$version" "${BASH_REMATCH[1]}"
commit=${BASH_REMATCH[3]}
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1 && \
   [ "$(realpath "$(git -C "$src" rev-parse --show-toplevel)")" = "$src" ]; then
  [ -n "$commit" ] || fail "built from a git checkout, but --version names no commit: '$out'"
  git -C "$src" cat-file -e "$commit^{commit}" 2>/dev/null || fail "--version names $commit, not a commit of $src"
  expect_eq "the date of the commit --version names" "$(git -C "$src" log -1 --format=%cs "$commit")" "${BASH_REMATCH[4]}"
fi

vscode=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$src/editors/vscode/package.json")
expect_eq "editors/vscode/package.json version" "$version" "$vscode"
lock=$(sed -n '3s/^  "version": "\(.*\)",$/\1/p' "$src/editors/vscode/package-lock.json")
expect_eq "editors/vscode/package-lock.json version" "$version" "$lock"

grep -Eq "^## (\[?$version\]?([ ]|$)|Unreleased)" "$src/CHANGELOG.md" || fail "CHANGELOG.md has no heading for $version"
if ! grep -Eq "^## \[?$version\]?([ ]|$)" "$src/CHANGELOG.md"; then
  # Not released yet: the Unreleased section says which version it prepares.
  unreleased=$(sed -n '/^## Unreleased/,/^## [0-9]/p' "$src/CHANGELOG.md")
  [[ $unreleased == *"$version"* ]] || fail "CHANGELOG.md: neither a '## $version' heading nor $version under Unreleased"
fi
echo "ok: version $version everywhere; --version: $out"
