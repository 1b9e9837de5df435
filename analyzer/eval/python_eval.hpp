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
  ValueRef args;  // the config passed as `args=`; null when none was passed
  Span span;
};

struct ScriptSummary {
  std::vector<ValueRef> trainer_configs;  // configs that reach a trainer, or are live at the end
  std::vector<TrainerUse> trainers;
  std::vector<ValueRef> accelerator_parallelism;  // ParallelismConfig objects given to Accelerator(...)
  std::vector<ValueRef> parsers;                  // TrlParser/HfArgumentParser objects
  bool is_entry = false;                          // builds a trainer or a trainer config: a training script
};

ScriptSummary evaluate_module(const py::Module& module, const Knowledge& knowledge);

}  // namespace trl
