// TRL906 evaluation-too-long (warning): a script cut short at the evaluator's step limit
// (analyzer/pipeline/judge.cpp).
// The stage that finds it reports it by the constant below (rules/tool/tool_rules.hpp); the rule
// judges nothing.

#include "rules/tool/tool_rule.hpp"

namespace trl {

namespace tool_rules {
const char kEvaluationTooLong[] = "TRL906";
}  // namespace tool_rules

namespace {

const RuleInfo kInfo{
    tool_rules::kEvaluationTooLong, "evaluation-too-long", Severity::Warning,
    "A script takes more steps to evaluate than trl-lint follows; its settings are not checked.",
    "## What it does\nReports the statement at which trl-lint stopped evaluating a training script: it "
    "follows at most 200,000 statements and calls per script, the modules it imports included. The "
    "settings the script makes (its config objects, trainers, argument parsers, `ParallelismConfig`) are "
    "then treated as unknown, because the unseen rest of the script could change any of them; settings "
    "from the launch line and the accelerate config are still checked.\n\n"
    "## Why is this bad?\nA check that trl-lint cannot make is a problem it cannot report: a run of this "
    "script may break a rule unnoticed. Real training scripts stay far below the limit; generated code "
    "(long unrolled tables, thousands of calls) reaches it.\n\n"
    "## Example\n```python\nargs = SFTConfig(packing=True)\nexpand(1)  # each call runs 2,000 generated "
    "statements\n...\nexpand(120)  # the limit is reached in here\nargs.packing = False  # never seen\n"
    "```\n\n"
    "## Fix\nKeep generated tables out of the code the training script runs: load them from a data "
    "file instead. The finding can be suppressed like any other (`# noqa: TRL906` on its line).\n"};

}  // namespace

std::unique_ptr<Rule> make_evaluation_too_long() {
  return std::make_unique<tool_rules::ToolRule>(kInfo);
}

}  // namespace trl
