// Abstract interpretation of the project's Python: runs an entry script as `__main__`,
// following imports into project modules, calls into functions (arguments bound, returns
// merged), classes, dicts and `**kwargs`, attribute assignments, branches and loops, and YAML
// files the code loads itself. It reports which trainer configs the script builds (every field
// with where it was set and how it flowed), which trainers it starts, which ParallelismConfig
// reaches an Accelerator, and which argument parsers read its config from argv/--config.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/eval/py_value.hpp"
#include "analyzer/eval/script_summary.hpp"
#include "analyzer/facts/python_ir.hpp"

namespace trl {

class Knowledge;
struct Project;

class ProjectEvaluator {
 public:
  ProjectEvaluator(const Project& project, const Knowledge& knowledge);
  ~ProjectEvaluator();
  ProjectEvaluator(const ProjectEvaluator&) = delete;
  ProjectEvaluator& operator=(const ProjectEvaluator&) = delete;

  // Runs `file` as the main script and summarises what it configures. With `lines` (a docs
  // page's section, [first, second) in 0-based lines), only the top-level statements of those
  // lines run, after the imports, functions and classes written above them.
  ScriptSummary summarize(FileId file, std::optional<std::pair<std::uint32_t, std::uint32_t>> lines = std::nullopt);

  // The project file a dotted import names, seen from `from` (`level` leading dots);
  // kNoFile when it is not part of the project (a library, or missing).
  FileId resolve_import(std::string_view dotted, int level, FileId from) const;

  struct Impl;  // the state of one evaluation (python_eval_internal.hpp)

 private:
  std::unique_ptr<Impl> impl_;
};

// One module on its own (no imports resolved): for tests and quick checks.
ScriptSummary evaluate_module(const py::Module& module, const Knowledge& knowledge);

// The fields a user class's `__post_init__` assigns (`self.packing = False`, in any branch of
// it), which the dataclass's __init__ sets after the arguments: `cls` is a user Class value.
std::set<std::string> post_init_writes(const Project& project, const PyValue& cls);

}  // namespace trl
