// The stages of an analysis, in the order every entry point runs them (the command line,
// pre-commit, `--stdin-filename`, the result cache's partial re-judging, the editor server), after
// the project's files are read and extracted (analyzer/project/project.hpp):
//   1. configure(): what the configuration says of each file (`target-versions`, `src`);
//   2. declared_runs() (analyzer/config/apply.hpp) and build(): the training runs, each with the
//      library versions it is judged against;
//   3. the rules: collect_diagnostics() (judge.hpp) for a whole project, rejudge() (rejudge.hpp)
//      for what a change touched, or the editor server's per-run, per-script and per-file parts;
//   4. finish(): the configuration's settings, then the `noqa` comments.
// The formatters (analyzer/report/) only print what stage 4 leaves.
#pragma once

#include <vector>

#include "analyzer/config/configuration.hpp"
#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/eval/run_builder.hpp"
#include "analyzer/eval/training_run.hpp"
#include "analyzer/pipeline/judge.hpp"
#include "analyzer/project/project.hpp"

namespace trl {

// Stage 1: records each file's configured `target-versions` and `src` folders in the project
// (replacing what an earlier call recorded).
void configure(Project& project, Configuration& config);

// Stage 2: the runs (all of them, on `threads` threads; or the part `scope` names), with the
// target versions of their configuration and of `--target-version`.
std::vector<TrainingRun> build(const Project& project, Configuration& config, const std::vector<DeclaredRun>& declared,
                               unsigned threads);
std::vector<TrainingRun> build(const Project& project, Configuration& config, const std::vector<DeclaredRun>& declared,
                               const RunScope& scope);

// Stage 4: drops what the configuration disables for each file and applies its severities, then
// the `noqa` comments (which add TRL910 for unused ones, itself subject to the settings).
void finish(const Project& project, Configuration& config, const Selection& selection, std::vector<Diagnostic>& diags);

// The selection every stage uses: the rules the configuration disables everywhere are not run.
Selection selection_of(Configuration& config);

}  // namespace trl
