// TRL904 nesting-too-deep (warning): Python or YAML nested deeper than the extractors follow.
// The stage that finds it reports it by the constant below (rules/tool/tool_rules.hpp); the rule
// judges nothing.

#include "rules/tool/tool_rule.hpp"

namespace trl {

namespace tool_rules {
const char kNestingTooDeep[] = "TRL904";
}  // namespace tool_rules

namespace {

const RuleInfo kInfo{
    tool_rules::kNestingTooDeep, "nesting-too-deep", Severity::Warning, "A file nests deeper than trl-lint analyses.",
    "## What it does\nReports Python or YAML nested more than a fixed depth; the deeper part is not "
    "analysed.\n\n## Why is this bad?\nReal configs never nest this deep; this is usually generated or "
    "hostile input.\n"};

}  // namespace

std::unique_ptr<Rule> make_nesting_too_deep() {
  return std::make_unique<tool_rules::ToolRule>(kInfo);
}

}  // namespace trl
