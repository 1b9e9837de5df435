// TRL910 unused-noqa (warning): a `noqa` comment that suppresses nothing
// (analyzer/pipeline/suppression.cpp).
// The stage that finds it reports it by the constant below (rules/tool/tool_rules.hpp); the rule
// judges nothing.

#include "rules/tool/tool_rule.hpp"

namespace trl {

namespace tool_rules {
const char kUnusedNoqa[] = "TRL910";
}  // namespace tool_rules

namespace {

const RuleInfo kInfo{
    tool_rules::kUnusedNoqa, "unused-noqa", Severity::Warning, "A `noqa` comment suppresses nothing.",
    "## What it does\n"
    "Reports a `# noqa: TRL...` comment (or a file-level `# trl-lint: noqa: TRL...`) that names a rule which reports "
    "nothing there. Only codes of enabled rules are checked; codes of other tools (`# noqa: E501`) and bare `# noqa` "
    "comments are left alone, since flake8 and ruff read them too. It also reports a directive with a colon and no "
    "code after it (`# noqa:`, `# noqa: packing-with-context-parallelism`), which suppresses nothing.\n"
    "\n"
    "## Why is this bad?\n"
    "A stale suppression hides the next real finding on that line: once the setting is fixed, a later change that "
    "breaks it again goes unreported.\n"
    "\n"
    "## Example\n"
    "```yaml\n"
    "# recipes/sft.yaml\n"
    "model_name_or_path: Qwen/Qwen2.5-0.5B\n"
    "packing: false  # noqa: TRL101\n"
    "```\n"
    "```bash\n"
    "# launch.sh\n"
    "trl sft --config recipes/sft.yaml\n"
    "```\n"
    "\n"
    "## Use instead\n"
    "```yaml\n"
    "# recipes/sft.yaml\n"
    "model_name_or_path: Qwen/Qwen2.5-0.5B\n"
    "packing: false\n"
    "```\n"
    "\n"
    "## Fix\n"
    "The fix removes the unused codes, or the whole comment when nothing else is left (safe).\n"
    "\n"
    "## Notes\n"
    "The report stage emits this code itself, after every rule has run: only then is it known which suppressions were "
    "used. It can be suppressed like any other code (`# noqa: TRL101, TRL910`, or `# trl-lint: noqa: TRL910` for a "
    "file).\n"};

}  // namespace

std::unique_ptr<Rule> make_unused_noqa() {
  return std::make_unique<tool_rules::ToolRule>(kInfo);
}

}  // namespace trl
