#!/usr/bin/env bash
# The VS Code extension compiles with tsc and packages with vsce into a .vsix holding the
# compiled extension, its manifest and its runtime dependency (vscode-languageclient), and not
# its TypeScript sources. Builds in editors/vscode (out/ is ignored by git); the .vsix goes to a
# temporary folder. Usage: vscode_vsix.sh SOURCE_DIR
set -euo pipefail
src=$(realpath "$1")/editors/vscode
[ -x "$src/node_modules/.bin/vsce" ] || { echo "editors/vscode/node_modules missing: run make setup-check"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$src"
rm -rf out
node node_modules/typescript/bin/tsc -p . || { echo "FAIL: tsc"; exit 1; }
[ -f out/extension.js ] || { echo "FAIL: out/extension.js not built"; exit 1; }
node node_modules/@vscode/vsce/vsce package --skip-license -o "$work/trl-lint.vsix" </dev/null \
  || { echo "FAIL: vsce package"; exit 1; }
listing=$(unzip -l "$work/trl-lint.vsix")
for f in extension/package.json extension/out/extension.js extension.vsixmanifest \
  extension/node_modules/vscode-languageclient/package.json; do
  grep -q "$f" <<<"$listing" || { echo "FAIL: $f not in the .vsix"; echo "$listing" | head -40; exit 1; }
done
for f in extension/src/ extension/node_modules/typescript/ extension/node_modules/@vscode/vsce/; do
  if grep -q "$f" <<<"$listing"; then echo "FAIL: $f packaged"; exit 1; fi
done
echo "ok: trl-lint.vsix built ($(wc -c < "$work/trl-lint.vsix") bytes)"
