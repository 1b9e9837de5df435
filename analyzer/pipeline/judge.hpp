// From runs to findings: run the rules, turn file problems into diagnostics, order and
// de-duplicate them. The formatters are in formatters.hpp, one file each.
#pragma once

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/eval/python_eval.hpp"
#include "analyzer/eval/training_run.hpp"
#include "analyzer/project/project.hpp"
#include "rules/rule_context.hpp"

namespace trl {

struct Selection {
  std::vector<std::string> select;  // codes or prefixes; empty = all
  std::vector<std::string> ignore;
  bool enabled(const std::string& code) const;
};

// The findings of each run and of each evaluated script, as run_diagnostics and
// script_diagnostics make them, with what each read (what the result cache keeps, to judge
// again only what a change touches: analyzer/pipeline/rejudge.hpp).
struct JudgedRun {
  RunOrigin origin;
  FileId script = kNoFile;    // the script it starts (a launched script does not run on its own)
  std::vector<FileId> files;  // run_files
  FileId accelerate_yaml = kNoFile;
  AccelerateUse use;  // what it says of its accelerate config (file_uses)
  std::vector<Diagnostic> diags;
};
// A run's part, without its findings.
JudgedRun judged_run(const TrainingRun& run);
struct JudgedScript {
  FileId script = kNoFile;
  std::vector<FileId> read;  // the modules and data files its evaluation read (ScriptSummary::modules)
  std::vector<Diagnostic> diags;
};
struct JudgedParts {
  std::vector<JudgedRun> runs;        // in the runs' order
  std::vector<JudgedScript> scripts;  // in file order
  // imported_modules: whether a script that builds no trainer is an entry script depends on the
  // imports of every other file.
  std::vector<FileId> imported;
};
// What the runs of `parts` say about each file (file_uses from the parts).
std::vector<FileUses> file_uses(const Project& project, const std::vector<JudgedRun>& runs);

// Rules over runs and project, plus file problems; sorted (path, line, column, code) and unique.
// The rules are judged on `threads` threads (0: one per core), each rule on one of them; the
// findings do not depend on the thread count. With `parts`, also the findings of each run and
// script apart.
std::vector<Diagnostic> collect_diagnostics(const Project& project, const std::vector<TrainingRun>& runs,
                                            const Selection& selection, unsigned threads = 1,
                                            JudgedParts* parts = nullptr);

// The parts of collect_diagnostics, for a caller that keeps each part's findings (the LSP server
// judges again only the runs, scripts and files an edit touches; rules/rule.hpp says what each
// part reads). None filters by selection or sorts: join them in the order collect_diagnostics
// does (file problems; runs; scripts; files) and finish with finish_diagnostics.
// `read`: the files some run reads (run_files of every run). A YAML or JSON file that does not
// parse is reported (TRL903) when a run reads it or it is of a kind trl-lint judges (an
// accelerate or trainer config): an evaluation-harness task or a metrics file no run reads is not
// trl-lint's business.
void file_problem_diagnostics(const Project& project, const std::set<FileId>& read, std::vector<Diagnostic>& out);
// Whether a YAML or JSON file that does not parse is reported (see file_problem_diagnostics).
bool data_file_matters(const Project& project, FileId file, const std::set<FileId>& read);
// Adds the run's launch line as a related location (RelatedLocation::launch) to the findings
// diags[from..] that list none and are not on that line: a finding several launches reach then
// lists each (sort_diagnostics), and a `noqa` on one launch line silences that launch only.
void list_launch(const TrainingRun& run, std::vector<Diagnostic>& diags, std::size_t from);
// `context`: one per judging pass over `project` (make_rule_context, rule_context_builder.hpp),
// shared by every part judged in it.
void run_diagnostics(const Project& project, const RuleContext& context, const TrainingRun& run,
                     const Selection& selection, std::vector<Diagnostic>& out);
void script_diagnostics(const RuleContext& context, FileId script, const ScriptSummary& summary,
                        const Selection& selection, std::vector<Diagnostic>& out);
// For each file that holds YAML documents or that a run reads as its accelerate config
// (judged_as_file); `uses`: file_uses(project, runs)[file].
bool judged_as_file(const Project& project, FileId file, const FileUses& uses);
void file_diagnostics(const RuleContext& context, FileId file, const FileUses& uses, const Selection& selection,
                      std::vector<Diagnostic>& out);
// A notebook's code is read with each line of a cell decoded and placed at the start of its
// .ipynb line (analyzer/notebook): moves the spans of findings there onto the characters of the
// JSON strings they came from, and drops fixes that would edit a notebook. Call once per finding.
void notebook_positions(const Project& project, std::vector<Diagnostic>& diags);
// Adds the launch locations (RelatedLocation::launch) of `from` that `into` does not list.
void add_launches(Diagnostic& into, const Diagnostic& from);
// Keeps the first of the findings of one code at one place with one merge key (Diagnostic::merge_key).
void merge_findings(std::vector<Diagnostic>& diags);
// Drops what `selection` disables, merges (merge_findings), maps notebook positions, then sorts
// and de-duplicates.
void finish_diagnostics(const Project& project, const Selection& selection, std::vector<Diagnostic>& diags);

// Orders findings by (path, line, column, code, message) and drops exact repeats.
void sort_diagnostics(const Project& project, std::vector<Diagnostic>& diags);

}  // namespace trl
