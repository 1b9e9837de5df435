// The views of the runs themselves (`trl-lint runs`, `show-run`, `graph`): what the run builder
// made of each launch, before any rule judged it.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analyzer/eval/training_run.hpp"
#include "analyzer/project/project.hpp"

namespace trl {

// `trl-lint runs`: one line per run. `trl-lint show-run`: one run's effective configuration.
// Control characters in names, paths and values are shown as control pictures (printable).
void print_runs(std::ostream& out, const std::vector<TrainingRun>& runs, const Project& project);
void print_run(std::ostream& out, const TrainingRun& run, const Project& project);
// `trl-lint graph`: launch sites, scripts and config files as a Graphviz (dot) or Mermaid graph.
void print_graph(std::ostream& out, const std::vector<TrainingRun>& runs, const Project& project,
                 const std::string& format);

}  // namespace trl
