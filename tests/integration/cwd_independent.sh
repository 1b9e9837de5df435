#!/usr/bin/env bash
# Findings do not depend on trl-lint's own working folder: the same project analysed from its
# root and from a subfolder that holds the file a launch names gives the same findings.
set -u
bin=$1
dir=$2
root=$(cd "$dir" && "$bin" --no-cache --output-format concise . 2>&1)
sub=$(cd "$dir/exp" && "$bin" --no-cache --output-format concise .. 2>&1)
codes() { grep -o 'TRL[0-9]*' | sort; }
if [ "$(printf '%s\n' "$root" | codes)" != "$(printf '%s\n' "$sub" | codes)" ]; then
  echo "findings differ with the working folder:"
  echo "--- from the root:"; echo "$root"
  echo "--- from exp/:"; echo "$sub"
  exit 1
fi
printf '%s\n' "$root" | grep -q TRL004 || { echo "expected TRL004:"; echo "$root"; exit 1; }
exit 0
