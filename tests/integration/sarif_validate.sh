#!/usr/bin/env bash
# Validates the SARIF output of every fixture project with the Microsoft SARIF multitool
# (`validate --rule-kind "Sarif;Ghas"`: the SARIF 2.1.0 rules plus GitHub's ingestion rules).
# Passes only with zero errors and zero warnings. The validator is pinned in tools/sarif and
# installed by `make setup-check`; a missing validator is a failure, never a skip.
set -u
bin=$1
src=$2
: "${TRL_LINT_FIXTURES:?the fixture projects: build/fixtures, which the build writes (ctest sets this)}"
validator=$(cd "$src/tools/sarif" && node -p "require('@microsoft/sarif-multitool')" 2>/dev/null)
if [ -z "$validator" ] || [ ! -x "$validator" ]; then
  echo "SARIF multitool not installed: run \`make setup-check\` (npm ci in tools/sarif)"
  exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count=0
while IFS= read -r expected; do
  dir=$(dirname "$expected")
  name=$(echo "${dir#"$TRL_LINT_FIXTURES"/}" | tr '/' '_')
  args=()
  [ -f "$dir/ARGS" ] && read -r -a args < "$dir/ARGS"
  (cd "$dir" && "$bin" --output-format sarif "${args[@]}" . > "$out/$name.sarif")
  status=$?
  if [ "$status" -gt 1 ]; then echo "trl-lint failed ($status) on $dir"; exit 1; fi
  count=$((count + 1))
done < <(find "$TRL_LINT_FIXTURES" -name expected.txt | sort)
[ "$count" -gt 0 ] || { echo "no fixture projects found"; exit 1; }

# DOTNET_CLI_TELEMETRY_OPTOUT: no telemetry; the log is SARIF too, read with node.
# The files come first: the list options (--level, --log) would take them as values.
DOTNET_CLI_TELEMETRY_OPTOUT=1 "$validator" validate "$out"/*.sarif --rule-kind "Sarif;Ghas" \
  --level "Error;Warning" --output "$out/validation.log.sarif" --log ForceOverwrite > "$out/validator.txt" 2>&1
node - "$out/validation.log.sarif" "$count" <<'JS'
const fs = require('fs');
const [log, expected] = process.argv.slice(2);
const doc = JSON.parse(fs.readFileSync(log, 'utf8'));
const run = doc.runs[0];
const bad = (run.results || []).filter(r => ['error', 'warning', undefined].includes(r.level));
const notes = (run.invocations || []).flatMap(i => (i.toolExecutionNotifications || []).concat(i.toolConfigurationNotifications || []));
const failures = notes.filter(n => n.level === 'error');
for (const r of bad) {
  const where = r.locations?.[0]?.physicalLocation?.artifactLocation?.uri ?? '?';
  const args = (r.message.arguments || []).join(' | ');
  console.log(`${r.level ?? 'warning'} ${r.ruleId} ${where}: ${r.message.text ?? r.message.id} ${args}`);
}
for (const n of failures) console.log(`validator error: ${JSON.stringify(n.message)}`);
console.log(`validated ${expected} SARIF files: ${bad.length} errors or warnings`);
process.exit(bad.length || failures.length ? 1 : 0);
JS
status=$?
[ $status -eq 0 ] || cat "$out/validator.txt"
exit $status
