// Where the configuration meets the pipeline: which paths discovery skips, the runs a
// configuration declares, the target versions of each run, and the rule selection, per-file
// ignores and severities applied to findings (each by the configuration closest to the file).
#pragma once

#include <vector>

#include "analyzer/config/configuration.hpp"
#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/eval/run_builder.hpp"
#include "analyzer/project/project.hpp"

namespace trl {

// For LoadOptions::excluded: the `exclude` globs of the configuration governing each folder.
ExcludeFn exclusion(Configuration& config);
// For LoadOptions::listed: tells `config` which configuration files (and `.git`) each listed
// folder holds (Configuration::note_folder). `config` must outlive the discovery.
FolderListedFn folder_notes(Configuration& config);

// The `runs:` of every configuration that governs a project file (each declared once). A
// configuration file outside the project is added to it, so findings can point into it.
std::vector<DeclaredRun> declared_runs(Project& project, Configuration& config);

// Records the `target-versions:` of the configuration governing each project file in
// Project::configured_target_versions (what version_targets() reads after --target-version), and
// its `src:` folders in Project::configured_src_roots (where python_eval resolves imports).
void apply_configured_targets(Project& project, Configuration& config);

// Fills TrainingRun::target_versions from the configuration of each run's launch file or script;
// `--target-version` (Project::target_versions) wins over it.
void apply_target_versions(std::vector<TrainingRun>& runs, const Project& project, Configuration& config);

// Drops findings of rules the file's configuration disables or ignores for that file, and
// applies severity overrides.
void apply_settings(std::vector<Diagnostic>& diags, const Project& project, Configuration& config);

// Whether the configuration of a project file enables `code` (`select`, `ignore`, the command
// line; `per-file-ignores` is not asked).
bool enabled_in_file(const Project& project, Configuration& config, FileId file, const std::string& code);

// Rules no configuration enables anywhere need not run at all.
std::vector<std::string> disabled_everywhere(Configuration& config);

}  // namespace trl
