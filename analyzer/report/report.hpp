// From runs to findings: run the rules, turn file problems into diagnostics, order and
// de-duplicate them. The formatters are in formatters.hpp, one file each.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/eval/python_eval.hpp"
#include "analyzer/eval/training_run.hpp"
#include "analyzer/project/project.hpp"

namespace trl {

struct Selection {
  std::vector<std::string> select;  // codes or prefixes; empty = all
  std::vector<std::string> ignore;
  bool enabled(const std::string& code) const;
};

// Rules over runs and project, plus file problems; sorted (path, line, column, code) and unique.
// The rules are judged on `threads` threads (0: one per core), each rule on one of them; the
// findings do not depend on the thread count.
std::vector<Diagnostic> collect_diagnostics(const Project& project, const std::vector<TrainingRun>& runs,
                                            const Selection& selection, unsigned threads = 1);

// The parts of collect_diagnostics, for a caller that keeps each part's findings (the LSP server
// judges again only the runs, scripts and files an edit touches; rules/rule.hpp says what each
// part reads). None filters by selection or sorts: join them in the order collect_diagnostics
// does (file problems; runs; scripts; files) and finish with finish_diagnostics.
void file_problem_diagnostics(const Project& project, std::vector<Diagnostic>& out);
void run_diagnostics(const Project& project, const TrainingRun& run, const Selection& selection,
                     std::vector<Diagnostic>& out);
void script_diagnostics(const Project& project, FileId script, const ScriptSummary& summary, const Selection& selection,
                        std::vector<Diagnostic>& out);
// For each file that holds YAML documents or that a run reads as its accelerate config
// (judged_as_file); `uses`: file_uses(project, runs)[file].
bool judged_as_file(const Project& project, FileId file, const FileUses& uses);
void file_diagnostics(const Project& project, FileId file, const FileUses& uses, const Selection& selection,
                      std::vector<Diagnostic>& out);
// A notebook's code is read with each line of a cell decoded and placed at the start of its
// .ipynb line (analyzer/notebook): moves the spans of findings there onto the characters of the
// JSON strings they came from, and drops fixes that would edit a notebook. Call once per finding.
void notebook_positions(const Project& project, std::vector<Diagnostic>& diags);
// Keeps the first of the findings of one code at one place with one merge key (Diagnostic::merge_key).
void merge_findings(std::vector<Diagnostic>& diags);
// Drops what `selection` disables, merges (merge_findings), maps notebook positions, then sorts
// and de-duplicates.
void finish_diagnostics(const Project& project, const Selection& selection, std::vector<Diagnostic>& diags);

// Orders findings by (path, line, column, code, message) and drops exact repeats.
void sort_diagnostics(const Project& project, std::vector<Diagnostic>& diags);

// `trl-lint runs`: one line per run. `trl-lint show-run`: one run's effective configuration.
// Control characters in names, paths and values are shown as control pictures (printable).
void print_runs(std::ostream& out, const std::vector<TrainingRun>& runs, const Project& project);
void print_run(std::ostream& out, const TrainingRun& run, const Project& project);
// `trl-lint graph`: launch sites, scripts and config files as a Graphviz (dot) or Mermaid graph.
void print_graph(std::ostream& out, const std::vector<TrainingRun>& runs, const Project& project,
                 const std::string& format);

}  // namespace trl
