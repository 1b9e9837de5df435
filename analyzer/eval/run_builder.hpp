// Links launch commands to the scripts and config files they name and builds the effective
// configuration of each training run.
#pragma once

#include <set>
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
// Built on `threads` threads (0: one per core); the runs do not depend on the thread count.
std::vector<TrainingRun> build_runs(const Project& project, const Knowledge& knowledge,
                                    const std::vector<DeclaredRun>& declared = {}, unsigned threads = 1);

// A part of what build_runs builds (the runs an edit touches): the runs of the launch commands
// and declared runs listed, and the runs of the scripts listed that are entry scripts no launch
// starts. Launches outside the part start the scripts of `launched`.
struct RunScope {
  std::set<std::pair<FileId, std::size_t>> launches;  // (file, index of the command in its facts)
  std::set<std::size_t> declared;                     // indices into `declared`
  std::set<FileId> scripts;
  std::set<FileId> launched;
};
std::vector<TrainingRun> build_runs(const Project& project, const Knowledge& knowledge,
                                    const std::vector<DeclaredRun>& declared, const RunScope& scope);

// What the runs say about each file (indexed by FileId, one per file of the project), and what
// one run says about its accelerate config.
std::vector<FileUses> file_uses(const Project& project, const std::vector<TrainingRun>& runs);
AccelerateUse accelerate_use(const TrainingRun& run);

// The project's Python files another one imports, sorted: one of them that builds configs and no
// trainer is no entry script (a settings module), whatever imports it.
std::vector<FileId> imported_modules(const Project& project, const Knowledge& knowledge);

// A Python file (or Markdown/notebook code) that imports a training library: an entry script
// when no launch starts it, evaluated for the rules (for_each_script).
bool is_candidate_script(const Project& project, FileId id);

// Every file a run reads: launch file, script and the modules it imports, config files,
// referenced files, and the files its settings were written in.
std::set<FileId> run_files(const TrainingRun& run);

// Evaluations of scripts kept between analyses of one project (Project::script_cache, set by
// the LSP server): an entry holds until its script or a file its evaluation read changes.
struct ScriptCache {
  std::map<FileId, ScriptSummary> summaries;
  std::size_t files = 0;      // the project's file count when `summaries` was filled
  std::size_t evaluated = 0;  // scripts evaluated through this cache so far (tests, stats)
  // Drops the evaluations that read `changed`, and returns their scripts.
  std::vector<FileId> invalidate(FileId changed);
};

// One script's evaluation: the copy the project's script cache holds (read only: safe while
// other threads judge), else evaluated now and not kept.
ScriptSummary script_summary(const Project& project, const Knowledge& knowledge, FileId script);

// The evaluation of every Python file that imports trl/transformers/accelerate (what the run
// builder reads; rules use it for facts about constructions), handed to `fn` in file order.
// With a Project::script_cache, kept evaluations are reused and new ones kept, and `fn` reads
// the cache's own, not copies. Several threads may call it at once only when the cache holds
// every script already (a call from one thread fills it).
void for_each_script(const Project& project, const Knowledge& knowledge,
                     const std::function<void(FileId, const ScriptSummary&)>& fn);

// Parses a script's own arguments (`--packing`, `--max_length=2048`, `--packing false`) into
// settings, using the field types of `classes`. `--config` is skipped.
void apply_cli_args(const std::vector<Word>& args, const std::vector<const ClassInfo*>& classes,
                    const Knowledge& knowledge, std::map<std::string, Setting, std::less<>>& out);

}  // namespace trl
