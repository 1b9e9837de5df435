// Finds old argument names (renamed: TRL501, removed without replacement: TRL502) in trainer
// YAML keys, launch-line flags and Python keyword arguments, judged at the target versions.
#pragma once

#include <vector>

#include "rules/rule.hpp"

namespace trl::rules {

// `removed`: true for TRL502 (renames with no new name), false for TRL501. The trainer YAML keys
// and launch-line flags of a run whose arguments come from TrlParser:
void find_renamed_in_run(const Rule& rule, bool removed, const RuleContext& context, const TrainingRun& run,
                         std::vector<Diagnostic>& out);
// The keyword arguments of known classes (configs and trainers) in an evaluated script:
void find_renamed_in_script(const Rule& rule, bool removed, const RuleContext& context, FileId file,
                            const ScriptSummary& summary, std::vector<Diagnostic>& out);

}  // namespace trl::rules
