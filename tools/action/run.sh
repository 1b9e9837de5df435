#!/usr/bin/env bash
# The action's run step: trl-lint writes SARIF to $TRL_LINT_SARIF (paths relative to the
# working folder, the checkout's root), then, when TRL_LINT_ANNOTATE is true, the same findings
# as workflow annotations. Outputs: sarif-file, exit-code. The step itself fails only on exit
# code 2 (an error); the result step decides about findings, after the upload.
set -uo pipefail
sarif=${TRL_LINT_SARIF:-trl-lint.sarif}
read -r -a args <<< "${TRL_LINT_ARGS:-.}"
trl-lint --output-format sarif "${args[@]}" > "$sarif"
status=$?
echo "exit-code=$status" >> "${GITHUB_OUTPUT:?}"
if [ "$status" -le 1 ]; then
  echo "sarif-file=$sarif" >> "$GITHUB_OUTPUT"
else
  echo "trl-lint failed with exit code $status" >&2
  exit "$status"
fi
if [ "${TRL_LINT_ANNOTATE:-true}" = true ]; then
  trl-lint --output-format github "${args[@]}"
  annotate=$?
  [ "$annotate" -le 1 ] || exit "$annotate"
fi
exit 0
