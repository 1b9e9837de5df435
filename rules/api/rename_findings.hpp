// Finds old argument names (renamed: TRL501, removed without replacement: TRL502) in trainer
// YAML keys, launch-line flags and Python keyword arguments, judged at the target versions.
#pragma once

#include <vector>

#include "rules/rule.hpp"

namespace trl::rules {

// `removed`: true for TRL502 (renames with no new name), false for TRL501.
void find_renamed_arguments(const Rule& rule, bool removed, const Project& project,
                            const std::vector<TrainingRun>& runs, std::vector<Diagnostic>& out);

}  // namespace trl::rules
