// Links launch commands to the scripts and config files they name and builds the effective
// configuration of each training run.
#pragma once

#include <vector>

#include "analyzer/eval/training_run.hpp"
#include "analyzer/project/project.hpp"

namespace trl {

class Knowledge;

// One run per launch command found in the project, one per explicit run (a project config's
// `runs:` entry), and one per training script that no launch names.
std::vector<TrainingRun> build_runs(const Project& project, const Knowledge& knowledge,
                                    const std::vector<ExplicitRun>& explicit_runs = {});

// Parses a script's own arguments (`--packing`, `--max_length=2048`, `--packing false`) into
// settings, using the field types of `classes`. `--config` is skipped.
void apply_cli_args(const std::vector<Word>& args, const std::vector<const ClassInfo*>& classes,
                    const Knowledge& knowledge, std::map<std::string, Setting, std::less<>>& out);

}  // namespace trl
