// TRL902 not-utf8-text (warning): a file with NUL bytes or invalid UTF-8
// (analyzer/project/project.cpp).
// The stage that finds it reports it by the constant below (rules/tool/tool_rules.hpp); the rule
// judges nothing.

#include "rules/tool/tool_rule.hpp"

namespace trl {

namespace tool_rules {
const char kNotUtf8Text[] = "TRL902";
}  // namespace tool_rules

namespace {

const RuleInfo kInfo{
    tool_rules::kNotUtf8Text, "not-utf8-text", Severity::Warning,
    "A file is binary or not valid UTF-8; it was skipped.",
    "## What it does\nReports a Python, YAML or shell file that contains NUL bytes or is not valid "
    "UTF-8.\n\n## Why is this bad?\nPython and PyYAML read configs as UTF-8; such a file fails to load or "
    "is not what its name says.\n\n## Fix\nSave the file as UTF-8, or exclude it.\n"};

}  // namespace

std::unique_ptr<Rule> make_not_utf8_text() {
  return std::make_unique<tool_rules::ToolRule>(kInfo);
}

}  // namespace trl
