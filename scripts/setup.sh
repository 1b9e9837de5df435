#!/usr/bin/env bash
# Installs what trl-lint needs on Debian 12, by tier: the Debian packages (only the missing ones;
# sudo when not root) and the npm-pinned folders.
#
#   scripts/setup.sh [build]   the build of trl-lint: compiler, cmake, libraries, the grammars
#   scripts/setup.sh test      and the tools `make test` runs (git, pre-commit, strace, python3 venv)
#   scripts/setup.sh check     and the tools `make check` adds (clang-14 and libFuzzer, clang-tidy,
#                              clang-format, Neovim, Emacs, the SARIF multitool, the VS Code
#                              extension's build tools)
#
# Extra arguments after the tier are more Debian packages to install.
set -euo pipefail
cd "$(dirname "$0")/.."

tier=build
case "${1:-}" in
  build|test|check) tier=$1; shift ;;
esac

packages=(
  # libraries (catch2: the unit tests' header library, needed to configure the build folder)
  libtree-sitter-dev libyaml-cpp-dev libyaml-dev nlohmann-json3-dev catch2 libcli11-dev libtomlplusplus-dev libxxhash-dev pkg-config
)
if [ "$tier" != build ]; then
  packages+=(
    # tools the test tier runs: git and pre-commit (the pre-commit tests), strace (robust/safety),
    # python3 with venv and pip (the wheel and the python pre-commit hook tests, scripts/new-rule)
    git pre-commit strace python3 python3-venv python3-pip python3-setuptools python3-wheel
    # the differential test against PyYAML (yaml/pyyaml-differential)
    python3-yaml
  )
fi
if [ "$tier" = check ]; then
  packages+=(
    # editors (lsp/neovim, lsp/emacs with Debian's eglot; unzip reads the .vsix)
    neovim emacs-nox elpa-eglot unzip
    # fuzzing (the libFuzzer targets: fuzz-smoke tests, `make fuzz`)
    clang-14 libfuzzer-14-dev
    # lint (lint/clang-format, lint/clang-tidy, make lint)
    clang-format clang-tidy
  )
fi
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
  echo "setup ($tier): installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm folders (reinstalled when their lock file changed since the last install).
npm_install() {
  local dir=$1 what=$2
  local stamp=$dir/node_modules/.trl-lint-lock
  if [ ! -f "$stamp" ] || ! cmp -s "$dir/package-lock.json" "$stamp"; then
    echo "setup: installing $what (npm ci in $dir)"
    (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    cp "$dir/package-lock.json" "$stamp"
  fi
}
# grammars/: the tree-sitter grammars compiled into trl-lint.
npm_install grammars "tree-sitter grammars"
if [ "$tier" = check ]; then
  # tools/sarif/: the SARIF validator (sarif/multitool-validate); editors/vscode: the extension.
  npm_install tools/sarif "the SARIF multitool"
  npm_install editors/vscode "the VS Code extension build tools (TypeScript, vsce)"
  # Its package makes the binary executable in a postinstall script, which --ignore-scripts skips.
  chmod u+x tools/sarif/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
fi
