#!/usr/bin/env bash
# The VS Code extension compiles with tsc and packages with vsce into a .vsix holding the
# compiled extension and its manifest. Usage: vscode_vsix.sh SOURCE_DIR
set -euo pipefail
src=$(realpath "$1")/editors/vscode
[ -x "$src/node_modules/.bin/vsce" ] || { echo "editors/vscode/node_modules missing: run make setup"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src/src" "$src/package.json" "$src/package-lock.json" "$src/tsconfig.json" "$src/README.md" \
  "$src/.vscodeignore" "$work/"
ln -s "$src/node_modules" "$work/node_modules"
cd "$work"
node node_modules/typescript/bin/tsc -p . || { echo "FAIL: tsc"; exit 1; }
[ -f out/extension.js ] || { echo "FAIL: out/extension.js not built"; exit 1; }
node node_modules/@vscode/vsce/vsce package --no-dependencies --skip-license -o trl-lint.vsix </dev/null \
  || { echo "FAIL: vsce package"; exit 1; }
listing=$(unzip -l trl-lint.vsix)
for f in extension/package.json extension/out/extension.js extension.vsixmanifest; do
  grep -q "$f" <<<"$listing" || { echo "FAIL: $f not in the .vsix"; echo "$listing"; exit 1; }
done
if grep -q "extension/src/" <<<"$listing"; then echo "FAIL: TypeScript sources packaged"; exit 1; fi
echo "ok: trl-lint.vsix built ($(wc -c < trl-lint.vsix) bytes)"
