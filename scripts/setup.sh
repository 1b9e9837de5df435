#!/usr/bin/env bash
# Installs what trl-lint needs to build and test on Debian 12: the Debian packages (only the
# missing ones; sudo when not root) and the npm-pinned tree-sitter grammars.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  # libraries
  libtree-sitter-dev libyaml-cpp-dev libyaml-dev nlohmann-json3-dev catch2 libcli11-dev libtomlplusplus-dev libxxhash-dev pkg-config
  # tools the integration tests run (emacs-nox and elpa-eglot: the Emacs setup's test)
  git pre-commit neovim unzip emacs-nox elpa-eglot
  # fuzzing (libFuzzer targets, `make fuzz`) and the safety tests (strace)
  clang-14 libfuzzer-14-dev strace
  # lint (make lint, ctest lint/*) and scripts/new-rule
  clang-format clang-tidy python3
  # the differential test against PyYAML (tests/yaml_diff)
  python3-yaml
)
packages+=("$@")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Tools: a command already on the PATH is enough (node and npm may come from outside Debian).
for tool in g++:g++ cmake:cmake make:make node:nodejs npm:npm; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm folders (reinstalled when their lock file changed since the last install):
# grammars/ holds the tree-sitter grammars, tools/sarif/ the SARIF validator the tests run.
npm_install() {
  local dir=$1 what=$2
  local stamp=$dir/node_modules/.trl-lint-lock
  if [ ! -f "$stamp" ] || ! cmp -s "$dir/package-lock.json" "$stamp"; then
    echo "setup: installing $what (npm ci in $dir)"
    (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    cp "$dir/package-lock.json" "$stamp"
  fi
}
npm_install grammars "tree-sitter grammars"
npm_install tools/sarif "the SARIF multitool"
npm_install editors/vscode "the VS Code extension build tools (TypeScript, vsce)"
# Its package makes the binary executable in a postinstall script, which --ignore-scripts skips.
chmod u+x tools/sarif/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
