// Abstract interpretation of one Python module: which trainer configs it builds (with every
// field's value and where it was set), which trainers it starts, which ParallelismConfig
// reaches an Accelerator, and whether it reads its config through TrlParser/HfArgumentParser.
#pragma once

#include <vector>

#include "analyzer/eval/py_value.hpp"
#include "analyzer/facts/python_ir.hpp"

namespace trl {

class Knowledge;

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

struct ScriptSummary {
  std::vector<ValueRef> trainer_configs;  // configs that reach a trainer, or are live at the end
  std::vector<TrainerUse> trainers;
  std::vector<ValueRef> accelerator_parallelism;  // ParallelismConfig objects given to Accelerator(...)
  std::vector<ValueRef> parsers;                  // TrlParser/HfArgumentParser objects
  std::vector<ModelLoad> model_loads;
  bool is_entry = false;  // builds a trainer or a trainer config: a training script
};

ScriptSummary evaluate_module(const py::Module& module, const Knowledge& knowledge);

}  // namespace trl
