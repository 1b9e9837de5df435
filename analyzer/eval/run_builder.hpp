// Links launch commands to the scripts and config files they name and builds the effective
// configuration of each training run.
#pragma once

#include <vector>

#include "analyzer/eval/python_eval.hpp"
#include "analyzer/eval/training_run.hpp"
#include "analyzer/project/project.hpp"

namespace trl {

class Knowledge;

// A run declared in the trl-lint configuration (`runs:`), already expressed as the launch it
// stands for: its words point into the configuration file (`file`), paths relative to it.
struct DeclaredRun {
  std::string name;
  FileId file = kNoFile;
  LaunchCommand launch;
};

// Runs inferred from launch lines and entry scripts, plus the declared ones. A script that a
// declared run starts is not also analysed as a bare entry script.
std::vector<TrainingRun> build_runs(const Project& project, const Knowledge& knowledge,
                                    const std::vector<DeclaredRun>& declared = {});

// The evaluation of every Python file that imports trl/transformers/accelerate, by file
// (what the run builder reads; rules use it for facts about constructions).
std::map<FileId, ScriptSummary> evaluate_scripts(const Project& project, const Knowledge& knowledge);

// Parses a script's own arguments (`--packing`, `--max_length=2048`, `--packing false`) into
// settings, using the field types of `classes`. `--config` is skipped.
void apply_cli_args(const std::vector<Word>& args, const std::vector<const ClassInfo*>& classes,
                    const Knowledge& knowledge, std::map<std::string, Setting, std::less<>>& out);

}  // namespace trl
