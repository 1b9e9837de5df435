# Helpers for the integration tests: a scratch copy of a fixture and assertions.
fail() { echo "FAIL: $*"; exit 1; }
scratch_copy() {  # fixture folder (relative to fixtures/) -> prints a scratch copy's path
  local dir
  : "${TRL_LINT_FIXTURES:?the fixture projects: build/fixtures, which the build writes (ctest sets this)}"
  dir=$(mktemp -d)
  cp -R "$TRL_LINT_FIXTURES/$1/." "$dir/"
  rm -f "$dir/expected.txt" "$dir/CASE.md" "$dir/ARGS"
  echo "$dir"
}
expect_eq() {  # what, expected, actual
  [ "$2" = "$3" ] || { echo "FAIL: $1"; echo "--- expected"; printf '%s\n' "$2"; echo "--- actual"; printf '%s\n' "$3"; exit 1; }
}
