// TRL903 syntax-error (error): a file that does not parse, found by each extractor
// (analyzer/python, yaml, json, shell, notebook).
// The stage that finds it reports it by the constant below (rules/tool/tool_rules.hpp); the rule
// judges nothing.

#include "rules/tool/tool_rule.hpp"

namespace trl {

namespace tool_rules {
const char kSyntaxError[] = "TRL903";
}  // namespace tool_rules

namespace {

const RuleInfo kInfo{
    tool_rules::kSyntaxError, "syntax-error", Severity::Error, "A file a run reads does not parse.",
    "## What it does\n"
    "Reports a Python or shell file that does not parse, and a YAML or JSON file that does not load the way Python "
    "loads it: YAML as PyYAML's `yaml.safe_load` reads it (YAML 1.1; a multi-line quoted scalar continued at its key's "
    "column loads, a tab between tokens does not), JSON as Python's `json` module reads it (`NaN`, `Infinity` and "
    "`-Infinity` load). The finding points at the line and column where the loader stops, with its reason (\"mapping "
    "values are not allowed here\", \"found unexpected end of stream while scanning a quoted scalar\"). Values before "
    "the error are still analysed.\n"
    "\n"
    "A YAML or JSON file is reported only when a run reads it, or when it is an accelerate or trainer config (known "
    "from its keys, such as `distributed_type` or `model_name_or_path`, or from an `accelerate_config` path): an "
    "evaluation task file or a metrics file that no run reads is not checked.\n"
    "\n"
    "## Why is this bad?\n"
    "`yaml.safe_load` raises on it, so any launch that reads the file fails at start (after the cluster allocation).\n"
    "\n"
    "## Example\n"
    "```yaml\n"
    "# recipes/sft.yaml\n"
    "model_name_or_path: Qwen/Qwen2.5-0.5B\n"
    "learning_rate: 2.0e-5\n"
    "  packing: true\n"
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
    "learning_rate: 2.0e-5\n"
    "packing: true\n"
    "```\n"
    "\n"
    "## Fix\n"
    "Fix the syntax at the reported position.\n"};

}  // namespace

std::unique_ptr<Rule> make_syntax_error() {
  return std::make_unique<tool_rules::ToolRule>(kInfo);
}

}  // namespace trl
