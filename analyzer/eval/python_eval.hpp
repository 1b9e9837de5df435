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
#include "analyzer/facts/python_ir.hpp"

namespace trl {

class Knowledge;
struct Patcher;
struct Project;

struct TrainerUse {
  const ClassInfo* trainer = nullptr;
  ValueRef args;   // the config passed as `args=`; null when none was passed
  ValueRef model;  // the `model=` argument (a name the trainer loads, or a loaded model)
  Span span;
};

// A `<ModelClass>.from_pretrained(...)` call that loads a model (not a tokenizer or a config).
struct ModelLoad {
  ValueRef attn_implementation;  // null when the keyword is absent
  bool complete = true;          // false when **kwargs we cannot expand may carry the keyword
  Span span;
};

// A call of a class the knowledge describes (config, trainer, parallelism config, ...), with
// its keyword arguments (including ones spread from a known `**dict`) and where each was written.
struct Construction {
  const ClassInfo* cls = nullptr;
  std::string qualified;
  Span span;
  std::vector<Member> keywords;
  bool unknown_spread = false;       // *args/**kwargs we could not expand: more keywords may be passed
  std::vector<ValueRef> positional;  // the arguments passed by position, in order (`*list` expanded)
  // Libraries imported before the call that patch the class (Knowledge::patchers): what they
  // make the class accept.
  std::vector<const Patcher*> patched_by;
};

// Statements executed (and calls made) per script summary, imported modules included: the
// evaluation of one script stops there (ScriptSummary::cut_short).
inline constexpr std::size_t kEvaluationSteps = 200000;

struct ScriptSummary {
  std::vector<ValueRef> trainer_configs;  // configs that reach a trainer, or are live at the end
  std::vector<TrainerUse> trainers;
  std::vector<ValueRef> accelerator_parallelism;  // ParallelismConfig objects given to Accelerator(...)
  std::vector<ValueRef> parsers;                  // TrlParser/HfArgumentParser objects
  std::vector<ModelLoad> model_loads;
  bool is_entry = false;                    // builds a trainer or a trainer config: a training script
  std::vector<Construction> constructions;  // every call of a known class, in execution order
  // parse_args_and_config(return_remaining_strings=True) or (fail_with_unknown_args=False):
  // keys no dataclass takes are handed back to the script instead of raising.
  bool parser_keeps_unknown = false;
  // The other project files the evaluation read, in id order: the modules the script imported
  // (transitively) and the YAML and JSON files it loaded.
  std::vector<FileId> modules;
  // Valid when the evaluation ran out of its step budget (kEvaluationSteps) at this
  // statement or call. What came after it is unseen and may change any setting, so such a
  // summary holds no trainers, configs, parsers, parallelism objects, model loads or
  // constructions: the script's settings are unknown (no finding rests on them).
  Span cut_short;
};

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
