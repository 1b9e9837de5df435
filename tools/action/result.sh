#!/usr/bin/env bash
# The action's last step: fails on findings (exit code 1) when TRL_LINT_FAIL_ON_FINDINGS is true.
set -euo pipefail
case "${TRL_LINT_EXIT:-}" in
  0) echo "trl-lint: no findings" ;;
  1) echo "trl-lint: findings (see the annotations and code scanning)"
     [ "${TRL_LINT_FAIL_ON_FINDINGS:-true}" != true ] || exit 1 ;;
  *) echo "trl-lint: exit code '${TRL_LINT_EXIT:-}'"; exit 2 ;;
esac
