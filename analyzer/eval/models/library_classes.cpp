// Models of the classes the knowledge describes (rules/knowledge/roles.yaml): every call of one
// is a Construction; a trainer config is tracked as an object whose fields the rules read, a
// trainer records the config and model it is given, an Accelerator the ParallelismConfig it is
// given, an argument parser its dataclasses (arg_parsers.cpp). Also TrainingArguments' set_*
// methods, which assign fields the evaluator does not follow.
#include <cstddef>
#include <utility>
#include <vector>

#include "analyzer/eval/models/library_models.hpp"
#include "analyzer/knowledge/knowledge.hpp"

namespace trl::pyeval {

// A call of a class the knowledge describes: an object of that class with the keywords given,
// recorded as a Construction (with the patchers that reach it); then what its role adds.
ValueRef construct_library_class(Exec& ex, const LibraryCall& call) {
  const PyValue& callee = call.callee;
  const py::Expr& e = call.e;
  const ClassInfo& cls = *callee.cls;
  Args args = ex.eval_args(e, call.scope, call.depth);
  auto obj = ex.new_object(&cls, callee.qualified, e.span);
  for (auto& kw : args.keywords) obj->members.push_back(kw);
  keep_last_of_each(obj->members);
  obj->complete = !args.unknown_spread;
  // The patchers that reach this class: all imported so far, except one that rebinds the
  // class by name after the name was bound here.
  std::vector<const Patcher*> patched_by;
  for (std::size_t i = 0; i < ex.ev_.patchers.size(); ++i) {
    const PatchedClass* pc = ex.ev_.k.patched_class(*ex.ev_.patchers[i], cls);
    if (pc && (!pc->rebinds || i < callee.patchers_bound)) patched_by.push_back(ex.ev_.patchers[i]);
  }
  ex.ev_.constructions.push_back(
      {&cls, callee.qualified, e.span, args.keywords, args.unknown_spread, args.positional, std::move(patched_by)});
  switch (cls.role) {
    case ClassRole::TrainerConfig: ex.ev_.objects[obj->object_id] = obj; break;
    case ClassRole::Trainer: {
      TrainerUse use;
      use.trainer = &cls;
      use.span = e.span;
      if (const Member* m = obj->member("model"))
        use.model = m->value;
      else if (!args.positional.empty())
        use.model = args.positional[0];
      if (const Member* a = obj->member("args"))
        use.args = a->value;
      else if (args.positional.size() > 1)
        use.args = args.positional[1];
      ex.ev_.trainers.push_back(use);
      break;
    }
    case ClassRole::Accelerator:
      if (const Member* pc = obj->member("parallelism_config")) ex.ev_.accelerator_pcs.push_back(pc->value);
      break;
    case ClassRole::ArgParser: arg_parser_built(ex, obj, args); break;
    default: break;
  }
  return obj;
}

// TrainingArguments' set_training, set_optimizer, set_dataloader, ... assign fields
// (transformers training_args.py): what they set is not followed, so it is not known. Declines
// other methods.
ValueRef training_arguments_setter(Exec& ex, const MethodCall& call) {
  if (call.fn.name.rfind("set_", 0) != 0) return nullptr;
  ex.eval_args(call.e, call.scope, call.depth);
  ex.make_opaque(call.fn.a, call.e.span, call.scope, call.depth);
  return make_unknown(call.e.span);
}

}  // namespace trl::pyeval
