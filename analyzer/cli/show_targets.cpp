#include "analyzer/cli/show_targets.hpp"

#include <filesystem>
#include <system_error>

#include "analyzer/config/apply.hpp"
#include "analyzer/eval/version_targets.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/pipeline/pipeline.hpp"
#include "analyzer/project/project.hpp"

namespace trl::cli {

void print_targets(std::ostream& out, const std::string& abs, Configuration& config, const EnvironmentHints& hints) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string canonical = fs::weakly_canonical(abs, ec).string();
  LoadOptions options;
  options.paths = {project_root_of(canonical)};
  options.environment_hints = hints;
  options.threads = 1;
  options.excluded = exclusion(config);
  Project project = read_project(options);
  extract_project(project, options);
  configure(project, config);
  const FileId file = fs::is_directory(canonical, ec) ? kNoFile : project.sources.find_abs(canonical);
  VersionTargets targets = version_targets(project, file, Knowledge::get());
  // A folder: its configuration's `target-versions` (a file's come through version_targets).
  if (file == kNoFile)
    for (const auto& [lib, version] : config.for_path(abs).target_versions) {
      VersionTarget& t = lib == "trl" ? targets.trl : lib == "transformers" ? targets.transformers : targets.accelerate;
      t.version = version.value;
      t.why = "set in the trl-lint configuration (target-versions)";
    }
  out << "targets:  # the versions findings are judged against (--target-version wins)\n";
  const PythonEnvironment& env = python_environment(project.root_of(canonical), hints);
  if (!env.prefix.empty())
    out << "environment: \"" << env.prefix << "\"  # chosen by " << env.chosen
        << " (--python, then $VIRTUAL_ENV, the project's .venv/ or venv/, then $CONDA_PREFIX)\n";
  for (const VersionTarget* t : {&targets.trl, &targets.transformers, &targets.accelerate})
    out << "  " << t->library << ": " << (t->version ? "\"" + *t->version + "\"" : std::string("unknown")) << "  # "
        << t->why << '\n';
}

}  // namespace trl::cli
