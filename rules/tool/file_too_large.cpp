// TRL905 file-too-large (warning): a file over --max-file-size (analyzer/project/project.cpp,
// analyzer/yaml).
// The stage that finds it reports it by the constant below (rules/tool/tool_rules.hpp); the rule
// judges nothing.

#include "rules/tool/tool_rule.hpp"

namespace trl {

namespace tool_rules {
const char kFileTooLarge[] = "TRL905";
}  // namespace tool_rules

namespace {

const RuleInfo kInfo{
    tool_rules::kFileTooLarge, "file-too-large", Severity::Warning, "A file is over the size limit; it was skipped.",
    "## What it does\nReports a file over `--max-file-size` (10 MB by default), which is skipped.\n\n"
    "## Why is this bad?\nSettings in it are invisible to trl-lint.\n\n## Fix\nRaise `--max-file-size`, or "
    "exclude the file.\n"};

}  // namespace

std::unique_ptr<Rule> make_file_too_large() {
  return std::make_unique<tool_rules::ToolRule>(kInfo);
}

}  // namespace trl
