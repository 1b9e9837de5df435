// Abstract interpretation of one Python module: which trainer configs it builds (with every
// field's value and where it was set), which trainers it starts, which ParallelismConfig
// reaches an Accelerator, and whether it reads its config through TrlParser/HfArgumentParser.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analyzer/eval/py_value.hpp"
#include "analyzer/facts/python_ir.hpp"

namespace trl {

class Knowledge;

struct TrainerUse {
  const ClassInfo* trainer = nullptr;
  ValueRef args;  // the config passed as `args=`; null when none was passed
  Span span;
};

// A call of a class the knowledge describes (config, trainer, parallelism config, ...), with
// its keyword arguments (including ones spread from a known `**dict`) and where each was written.
struct Construction {
  const ClassInfo* cls = nullptr;
  std::string qualified;
  Span span;
  std::vector<Member> keywords;
  bool unknown_spread = false;  // *args/**kwargs we could not expand: more keywords may be passed
};

struct YamlNode;
// Gives the YAML document of a project file named in `open("path")` (relative to the script's
// folder or the project root), or null. Lets the evaluator follow `yaml.safe_load(open(path))`.
using YamlLoader = std::function<const YamlNode*(const std::string& path)>;

struct ScriptSummary {
  std::vector<ValueRef> trainer_configs;  // configs that reach a trainer, or are live at the end
  std::vector<TrainerUse> trainers;
  std::vector<ValueRef> accelerator_parallelism;  // ParallelismConfig objects given to Accelerator(...)
  std::vector<ValueRef> parsers;                  // TrlParser/HfArgumentParser objects
  bool is_entry = false;                          // builds a trainer or a trainer config: a training script
  std::vector<Construction> constructions;        // every call of a known class, in execution order
  // parse_args_and_config(return_remaining_strings=True) or parse_known_args: keys no dataclass
  // takes are handed back to the script instead of raising.
  bool parser_keeps_unknown = false;
};

ScriptSummary evaluate_module(const py::Module& module, const Knowledge& knowledge, const YamlLoader& yaml = {});

}  // namespace trl
