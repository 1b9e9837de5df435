// What the evaluation of one script reports (analyzer/eval/python_eval.hpp makes it): the trainer
// configs and trainers it builds, the calls of known classes with their arguments, and the files
// it read. Plain data over evaluated values: rules read it (Rule::check_script).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analyzer/eval/py_value.hpp"
#include "analyzer/facts/python_ir.hpp"

namespace trl {

struct Patcher;

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

}  // namespace trl
