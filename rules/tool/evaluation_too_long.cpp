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
    "## What it does\n"
    "Reports the statement at which trl-lint stopped evaluating a training script: it follows at most 200,000 "
    "statements and calls per script, the modules it imports included. The settings the script makes (its config "
    "objects, trainers, argument parsers, `ParallelismConfig`) are then treated as unknown, because the unseen rest of "
    "the script could change any of them; settings from the launch line and the accelerate config are still checked.\n"
    "\n"
    "## Why is this bad?\n"
    "A check that trl-lint cannot make is a problem it cannot report: a run of this script may break a rule unnoticed. "
    "Real training scripts stay far below the limit; generated code (long unrolled tables, thousands of calls) reaches "
    "it.\n"
    "\n"
    "## Example\n"
    "```python\n"
    "# train.py\n"
    "# Generated code: each level calls the one below it 4 times, so level9 makes 4**9 calls.\n"
    "from trl import SFTConfig, SFTTrainer\n"
    "\n"
    "def level0(x):\n"
    "    return x\n"
    "\n"
    "def level1(x):\n"
    "    return level0(4 * x) + level0(4 * x + 1) + level0(4 * x + 2) + level0(4 * x + 3)\n"
    "\n"
    "def level2(x):\n"
    "    return level1(4 * x) + level1(4 * x + 1) + level1(4 * x + 2) + level1(4 * x + 3)\n"
    "\n"
    "def level3(x):\n"
    "    return level2(4 * x) + level2(4 * x + 1) + level2(4 * x + 2) + level2(4 * x + 3)\n"
    "\n"
    "def level4(x):\n"
    "    return level3(4 * x) + level3(4 * x + 1) + level3(4 * x + 2) + level3(4 * x + 3)\n"
    "\n"
    "def level5(x):\n"
    "    return level4(4 * x) + level4(4 * x + 1) + level4(4 * x + 2) + level4(4 * x + 3)\n"
    "\n"
    "def level6(x):\n"
    "    return level5(4 * x) + level5(4 * x + 1) + level5(4 * x + 2) + level5(4 * x + 3)\n"
    "\n"
    "def level7(x):\n"
    "    return level6(4 * x) + level6(4 * x + 1) + level6(4 * x + 2) + level6(4 * x + 3)\n"
    "\n"
    "def level8(x):\n"
    "    return level7(4 * x) + level7(4 * x + 1) + level7(4 * x + 2) + level7(4 * x + 3)\n"
    "\n"
    "def level9(x):\n"
    "    return level8(4 * x) + level8(4 * x + 1) + level8(4 * x + 2) + level8(4 * x + 3)\n"
    "\n"
    "table = level9(0)  # the limit (200,000 steps) is reached in here\n"
    "args = SFTConfig(output_dir=\"out\", packing=True)  # never seen\n"
    "SFTTrainer(model=\"Qwen/Qwen2.5-0.5B\", args=args).train()\n"
    "```\n"
    "```bash\n"
    "# launch.sh\n"
    "python train.py\n"
    "```\n"
    "\n"
    "## Use instead\n"
    "```python\n"
    "# train.py\n"
    "import yaml\n"
    "\n"
    "from trl import SFTConfig, SFTTrainer\n"
    "\n"
    "with open(\"table.yaml\") as f:\n"
    "    table = yaml.safe_load(f)\n"
    "args = SFTConfig(output_dir=\"out\", packing=True)\n"
    "SFTTrainer(model=\"Qwen/Qwen2.5-0.5B\", args=args).train()\n"
    "```\n"
    "```yaml\n"
    "# table.yaml\n"
    "# the generated values, computed once and saved\n"
    "values: [0, 1, 2, 3]\n"
    "```\n"
    "\n"
    "## Fix\n"
    "Keep generated tables out of the code the training script runs: load them from a data file instead. The finding "
    "can be suppressed like any other (`# noqa: TRL906` on its line).\n"};

}  // namespace

std::unique_ptr<Rule> make_evaluation_too_long() {
  return std::make_unique<tool_rules::ToolRule>(kInfo);
}

}  // namespace trl
