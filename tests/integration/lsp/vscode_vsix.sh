#!/usr/bin/env bash
# The VS Code extension compiles with tsc and packages with vsce into a .vsix holding the
# compiled extension, its manifest, its runtime dependency (vscode-languageclient) and the
# trl-lint binary (stripped, bin/trl-lint, executable), and not its TypeScript sources. The
# extension starts that binary unless the `trl-lint.path` setting names another (server_path.js,
# run here with node). Builds in editors/vscode (out/ and bin/ are ignored by git); the .vsix goes
# to a temporary folder. Usage: vscode_vsix.sh SOURCE_DIR TRL_LINT_BINARY
set -euo pipefail
src=$(realpath "$1")/editors/vscode
binary=$(realpath "$2")
[ -x "$src/node_modules/.bin/vsce" ] || { echo "editors/vscode/node_modules missing: run make setup-check"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$src"
rm -rf out
node node_modules/typescript/bin/tsc -p . || { echo "FAIL: tsc"; exit 1; }
[ -f out/extension.js ] || { echo "FAIL: out/extension.js not built"; exit 1; }
mkdir -p bin && cp "$binary" bin/trl-lint && strip bin/trl-lint
node node_modules/@vscode/vsce/vsce package --skip-license -o "$work/trl-lint.vsix" </dev/null \
  || { echo "FAIL: vsce package"; exit 1; }
listing=$(unzip -l "$work/trl-lint.vsix")
for f in extension/package.json extension/out/extension.js extension/out/server_path.js extension.vsixmanifest \
  extension/node_modules/vscode-languageclient/package.json extension/bin/trl-lint; do
  grep -q "$f" <<<"$listing" || { echo "FAIL: $f not in the .vsix"; echo "$listing" | head -40; exit 1; }
done
for f in extension/src/ extension/node_modules/typescript/ extension/node_modules/@vscode/vsce/; do
  if grep -q "$f" <<<"$listing"; then echo "FAIL: $f packaged"; exit 1; fi
done
# The binary inside runs, and is the one the extension starts.
mkdir "$work/x" && (cd "$work/x" && unzip -q "$work/trl-lint.vsix")
ext=$work/x/extension
[ -x "$ext/bin/trl-lint" ] || { echo "FAIL: bin/trl-lint is not executable in the .vsix"; exit 1; }
"$ext/bin/trl-lint" --version >/dev/null || { echo "FAIL: the packaged binary does not run"; exit 1; }
chosen=$(node -e 'console.log(require(process.argv[1]).serverPath(process.argv[2], ""))' "$ext/out/server_path.js" "$ext")
[ "$chosen" = "$ext/bin/trl-lint" ] || { echo "FAIL: the extension would start $chosen, not its binary"; exit 1; }
chosen=$(node -e 'console.log(require(process.argv[1]).serverPath(process.argv[2], "/opt/trl-lint"))' "$ext/out/server_path.js" "$ext")
[ "$chosen" = /opt/trl-lint ] || { echo "FAIL: the trl-lint.path setting is not used ($chosen)"; exit 1; }
chosen=$(node -e 'console.log(require(process.argv[1]).serverPath(process.argv[2], ""))' "$ext/out/server_path.js" "$work")
[ "$chosen" = trl-lint ] || { echo "FAIL: without a bundled binary, not trl-lint on the PATH ($chosen)"; exit 1; }
echo "ok: trl-lint.vsix built ($(wc -c < "$work/trl-lint.vsix") bytes)"
