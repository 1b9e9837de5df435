// The RuleContext of one judging pass (rules/rule_context.hpp): what the rules may read of the
// project, taken from it before any rule runs.
#pragma once

#include <vector>

#include "analyzer/project/project.hpp"
#include "rules/rule_context.hpp"

namespace trl {

// A context over `project`, which must outlive it with its facts unchanged. The version targets
// of `anchors` (the runs' version anchors, the scripts and the files to be judged) are computed
// now, so that rules on several threads only read them; any other anchor's when a rule first
// asks. A run's script is evaluated (script_summary) when a rule first asks for its trainer calls;
// an installed library's class is read from its source (installed_class) when a rule asks for it.
RuleContext make_rule_context(const Project& project, const std::vector<FileId>& anchors = {});

}  // namespace trl
