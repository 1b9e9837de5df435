#!/usr/bin/env bash
# The action's install step: a virtualenv in $RUNNER_TEMP (the runner's system Python refuses
# `pip install`, PEP 668), trl-lint installed into it with pip, its bin/ added to $GITHUB_PATH.
# TRL_LINT_PACKAGE: what pip installs; empty: the action's own checkout ($GITHUB_ACTION_PATH),
# whose build needs the Debian/Ubuntu packages of `scripts/setup.sh build` (installed here).
set -euo pipefail
venv=${RUNNER_TEMP:?}/trl-lint-venv
python3 -m venv "$venv"
package=${TRL_LINT_PACKAGE:-}
if [ -z "$package" ]; then
  "${GITHUB_ACTION_PATH:?}/scripts/setup.sh" build
  package=$GITHUB_ACTION_PATH
fi
"$venv/bin/python" -m pip install --disable-pip-version-check "$package"
echo "$venv/bin" >> "${GITHUB_PATH:?}"
"$venv/bin/trl-lint" --version
