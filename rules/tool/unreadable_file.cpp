// TRL901 unreadable-file (warning): a file trl-lint could not read (analyzer/project/project.cpp,
// prefilter_reach.cpp).
// The stage that finds it reports it by the constant below (rules/tool/tool_rules.hpp); the rule
// judges nothing.

#include "rules/tool/tool_rule.hpp"

namespace trl {

namespace tool_rules {
const char kUnreadableFile[] = "TRL901";
}  // namespace tool_rules

namespace {

const RuleInfo kInfo{
    tool_rules::kUnreadableFile, "unreadable-file", Severity::Warning, "A file could not be read; it was skipped.",
    "## What it does\nReports a file trl-lint could not read (permissions, a file that vanished, an internal "
    "error on that file).\n\n## Why is this bad?\nSettings in that file are invisible, so a run that uses it "
    "cannot be judged.\n\n## Fix\nMake the file readable, or exclude it.\n"};

}  // namespace

std::unique_ptr<Rule> make_unreadable_file() {
  return std::make_unique<tool_rules::ToolRule>(kInfo);
}

}  // namespace trl
