// The model of `<ModelClass>.from_pretrained(...)` (the `.from_pretrained` suffix in
// registry.cpp): a call that loads a model is recorded as a ModelLoad, with the
// `attn_implementation` it asks for, for the attention rules.
#include <string>
#include <string_view>

#include "analyzer/eval/models/library_models.hpp"

namespace trl::pyeval {

namespace {

// transformers/peft model classes loaded with from_pretrained (AutoModelForCausalLM,
// Qwen2ForCausalLM, AutoModelForVision2Seq, ...), not tokenizers, processors or configs.
bool is_model_load(const std::string& q) {
  constexpr std::string_view suffix = ".from_pretrained";
  if (q.size() <= suffix.size() || q.compare(q.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  std::string cls = q.substr(0, q.size() - suffix.size());
  cls = cls.substr(cls.rfind('.') == std::string::npos ? 0 : cls.rfind('.') + 1);
  for (std::string_view no : {"Tokenizer", "Processor", "Config", "FeatureExtractor", "PeftModel"})
    if (cls.find(no) != std::string::npos) return false;
  return cls.find("Model") != std::string::npos;
}

}  // namespace

// A model class's from_pretrained: the load, and an unknown model. Declines the other classes'.
ValueRef pretrained_model_load(Exec& ex, const LibraryCall& call) {
  if (!is_model_load(call.callee.qualified)) return nullptr;
  Args args = ex.eval_args(call.e, call.scope, call.depth);
  ModelLoad load;
  load.span = call.e.span;
  load.complete = !args.unknown_spread;
  for (const auto& kw : args.keywords)
    if (kw.name == "attn_implementation") load.attn_implementation = kw.value;
  ex.ev_.model_loads.push_back(load);
  return make_unknown(call.e.span);
}

}  // namespace trl::pyeval
