// Judging again after a change: the runs and scripts an earlier analysis of the same files
// judged (JudgedParts, kept by the result cache) are taken as they were unless they read a file
// whose contents changed; only those, and the launches and scripts in the changed files, are
// built and judged again. The files are judged again (each from its own facts and what the runs
// say of it), and the file problems are made again.
//
// Sound when the earlier analysis had the same files (none added or removed: file ids are the
// same, and no import or path resolves otherwise), the same configuration and options, and no
// changed file holds version pins (they set the versions of every run below their folder while
// being in no run's files), and no changed file could not be read then or cannot be now (an
// import of a module that could not be read is recorded nowhere). The result cache checks that
// before it hands out the parts. A file that another one starts or stops importing counts as
// changed (a settings module is no entry script).
#pragma once

#include <vector>

#include "analyzer/config/configuration.hpp"
#include "analyzer/eval/run_builder.hpp"
#include "analyzer/pipeline/judge.hpp"

namespace trl {

struct Rejudged {
  std::vector<Diagnostic> diags;  // as collect_diagnostics makes them (before settings and suppressions)
  JudgedParts parts;              // of this analysis, for the next one
  std::vector<TrainingRun> runs;  // the runs built again (the others were not built)
  std::size_t runs_kept = 0;
  std::size_t scripts_kept = 0;
  std::size_t scripts_judged = 0;
};

// `changed`: per file of `project`, whether its contents differ from the analysis `kept` comes from.
Rejudged rejudge(const Project& project, const std::vector<DeclaredRun>& declared, Configuration& config,
                 const Selection& selection, JudgedParts kept, const std::vector<char>& changed);

}  // namespace trl
