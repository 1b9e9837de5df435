#!/usr/bin/env bash
# The Python package (pyproject.toml, python/): builds the wheel with pip through the in-tree
# backend (the binary under test given with TRL_LINT_BINARY, so nothing is compiled again),
# installs it into a fresh venv with `pip install --no-index`, and runs `trl-lint` (from the
# venv's bin/, as on the PATH) and `python -m trl_lint` (with bin/ off the PATH) on the example
# project: the findings of the binary under test, exit code 1. Offline throughout.
# Usage: wheel_test.sh TRL_LINT_BINARY SOURCE_DIR
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
. "$src/tests/integration/lib.sh"
python=${PYTHON:-python3}
"$python" -c 'import venv, ensurepip' 2>/dev/null || fail "$python has no venv/ensurepip (Debian: python3-venv; run make setup-test)"

tmp=$(mktemp -d)
project=
trap 'rm -rf "$tmp" ${project:+"$project"}' EXIT
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_CONFIG_FILE=/dev/null
"$python" -m venv "$tmp/venv"
venv=$tmp/venv

TRL_LINT_BINARY=$bin "$venv/bin/pip" wheel --no-index --no-deps -q -w "$tmp/dist" "$src" \
  || fail "pip wheel failed"
wheels=("$tmp"/dist/trl_lint-*.whl)
[ ${#wheels[@]} = 1 ] && [ -f "${wheels[0]}" ] || fail "expected one wheel in dist/, found: $(ls "$tmp/dist")"
wheel=${wheels[0]}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$src/pyproject.toml")
case $(basename "$wheel") in
  "trl_lint-$version-py3-none-manylinux_2_"*"_$(uname -m).whl") ;;
  # A sanitized binary needs the sanitizer runtimes, which no manylinux policy allows.
  "trl_lint-$version-py3-none-linux_$(uname -m).whl") [ -n "${TRL_LINT_SANITIZED:-}" ] ||
    fail "wheel name $(basename "$wheel"): a plain linux tag for an unsanitized binary" ;;
  *) fail "wheel name $(basename "$wheel"): expected trl_lint-$version-py3-none-manylinux_2_*_$(uname -m).whl" ;;
esac

# The wheel's contents: the binary as a script (executable), the module, a RECORD that matches.
"$venv/bin/python" - "$wheel" "$version" <<'PY' || fail "wheel contents"
import base64, hashlib, sys, zipfile
wheel, version = sys.argv[1], sys.argv[2]
z = zipfile.ZipFile(wheel)
names = set(z.namelist())
script = f"trl_lint-{version}.data/scripts/trl-lint"
for needed in (script, "trl_lint/__init__.py", "trl_lint/__main__.py",
               f"trl_lint-{version}.dist-info/METADATA", f"trl_lint-{version}.dist-info/WHEEL",
               f"trl_lint-{version}.dist-info/RECORD"):
    assert needed in names, f"{needed} missing from the wheel"
assert (z.getinfo(script).external_attr >> 16) & 0o111, "the binary is not executable in the wheel"
assert z.read(script)[:4] == b"\x7fELF", "the script is not the ELF binary"
metadata = z.read(f"trl_lint-{version}.dist-info/METADATA").decode()
assert "Name: trl-lint\n" in metadata and f"Version: {version}\n" in metadata, metadata[:300]
for line in z.read(f"trl_lint-{version}.dist-info/RECORD").decode().splitlines():
    name, digest, size = line.rsplit(",", 2)
    if not digest:
        continue
    data = z.read(name)
    want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    assert digest == want and int(size) == len(data), f"RECORD entry of {name} does not match"
PY

"$venv/bin/pip" install --no-index -q "$wheel" || fail "pip install --no-index of the wheel failed"
[ -x "$venv/bin/trl-lint" ] || fail "the venv has no bin/trl-lint"
expect_eq "trl-lint --version from the venv" "$("$bin" --version)" "$("$venv/bin/trl-lint" --version)"

project=$(scratch_copy example)
expected=$(cat "$src/fixtures/example/expected.txt")
[ -n "$expected" ] || fail "fixtures/example/expected.txt is empty"
run() {  # label, command...: the concise findings, and exit code 1 (findings)
  local label=$1 out st
  shift
  set +e
  out=$(cd "$project" && TRL_LINT_CACHE_DIR=$tmp/cache "$@" --no-cache --output-format concise . 2>/dev/null)
  st=$?
  set -e
  [ "$st" = 1 ] || { echo "$out"; fail "$label: exit code $st, expected 1"; }
  expect_eq "$label: findings on fixtures/example" "$expected" "$out"
}
# `trl-lint` found on the PATH, as after activating the venv.
run "trl-lint on the PATH" env PATH="$venv/bin:$PATH" trl-lint
# `python -m trl_lint`, the venv's bin/ not on the PATH and the venv not activated.
run "python -m trl_lint" env PATH=/usr/bin:/bin "$venv/bin/python" -m trl_lint
# The exit code and usage errors pass through: 2 for an unknown option.
set +e
"$venv/bin/python" -m trl_lint --no-such-option >/dev/null 2>&1
st=$?
set -e
[ "$st" = 2 ] || fail "python -m trl_lint --no-such-option: exit code $st, expected 2"
echo "ok: $(basename "$wheel") installs trl-lint and python -m trl_lint offline"
