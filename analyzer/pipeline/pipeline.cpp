#include "analyzer/pipeline/pipeline.hpp"

#include "analyzer/config/apply.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/pipeline/suppression.hpp"

namespace trl {

void configure(Project& project, Configuration& config) {
  project.configured_target_versions.clear();
  project.configured_src_roots.clear();
  apply_configured_targets(project, config);
}

std::vector<TrainingRun> build(const Project& project, Configuration& config, const std::vector<DeclaredRun>& declared,
                               unsigned threads) {
  std::vector<TrainingRun> runs = build_runs(project, Knowledge::get(), declared, threads);
  apply_target_versions(runs, project, config);
  return runs;
}

std::vector<TrainingRun> build(const Project& project, Configuration& config, const std::vector<DeclaredRun>& declared,
                               const RunScope& scope) {
  std::vector<TrainingRun> runs = build_runs(project, Knowledge::get(), declared, scope);
  apply_target_versions(runs, project, config);
  return runs;
}

void finish(const Project& project, Configuration& config, const Selection& selection, std::vector<Diagnostic>& diags) {
  apply_settings(diags, project, config);
  apply_suppressions(project, diags, selection, [&](FileId file, const std::string& code) {
    return enabled_in_file(project, config, file, code);
  });
  // TRL910, made by the suppressions, obeys the configuration of its file like every code
  // (per-file-ignores, a nested `ignore`, `severity`); the others are unchanged by a second pass.
  apply_settings(diags, project, config);
}

Selection selection_of(Configuration& config) {
  return Selection{{}, disabled_everywhere(config)};
}

}  // namespace trl
