// The library versions a project is judged against: from `--target-version` (or the project
// config), else from the project's Python environment (python_environment.hpp), else from the
// nearest pins (requirements*.txt, pyproject.toml, setup.cfg, setup.py, environment.yml in the
// file's folder or a parent inside the project), else the newest release trl-lint knows.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/eval/version_target.hpp"
#include "analyzer/project/project.hpp"

namespace trl {

class Knowledge;

// The targets for the run or file rooted at `file` (kNoFile: the project root).
VersionTargets version_targets(const Project& project, FileId file, const Knowledge& knowledge);

// The Python environment of the project folder `root` (python_environment.hpp) and what it
// holds: how it was chosen, its folder, each library's name, version and metadata folder, sorted
// by name. The environment is not a project file, so the result cache keys its entries on this
// too (a library upgraded in place, or another environment activated, changes the targets).
std::vector<std::string> installed_libraries(const Project& project, const std::string& root);

// While one lives, version_targets() on this thread remembers its answers for `project`: the
// pin files are found once, and each file's targets computed once. Without it every call scans
// every file's facts for pins, so judging a project was quadratic in its file count (16% of a
// single-threaded run over 20,000 files). Scope it to a judging pass, during which the project's
// facts do not change. Memos nest: an inner one for another project hides the outer one; an
// inner one for the same project leaves the outer one in charge.
class VersionTargetsMemo {
 public:
  explicit VersionTargetsMemo(const Project& project);
  ~VersionTargetsMemo();
  VersionTargetsMemo(const VersionTargetsMemo&) = delete;
  VersionTargetsMemo& operator=(const VersionTargetsMemo&) = delete;

 private:
  friend VersionTargets version_targets(const Project&, FileId, const Knowledge&);
  const Project& project_;
  VersionTargetsMemo* outer_;
  bool installed_ = false;  // false inside a memo for the same project, which keeps serving
  bool pins_found_ = false;
  std::vector<std::pair<std::string, FileId>> pin_files_;  // folder of each file with pins, and the file
  const Knowledge* knowledge_ = nullptr;                   // the knowledge `results_` were computed with
  std::map<FileId, VersionTargets> results_;
};

}  // namespace trl
