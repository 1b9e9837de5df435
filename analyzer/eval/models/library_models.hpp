// Models of library calls in the Python evaluator: what a call of a library function or class,
// or of a method of a library value, does where the evaluator knows more than "an unknown
// value". The interpreter (python_eval_calls.cpp) hands every call of a library name to
// call_library and every method call on a value it tracks to call_library_method; the tables
// in registry.cpp say which model handles which call. One file per family of models:
//   registry.cpp           the tables: qualified name -> model, receiver -> method model
//   library_classes.cpp    classes the knowledge describes (configs, trainers, Accelerator),
//                          and TrainingArguments' set_* methods
//   arg_parsers.cpp        HfArgumentParser / TrlParser: the dataclasses they parse, parse_*
//   loaders.cpp            open / pathlib paths, and the YAML and JSON files read through
//                          yaml, json and OmegaConf
//   stdlib.cpp             Python's builtins, functools.partial, dataclasses, dict methods
//   datasets.cpp           the datasets library's loaders and transforms (never None)
//   pretrained_models.cpp  `<ModelClass>.from_pretrained(...)`
#pragma once

#include <memory>
#include <string_view>

#include "analyzer/eval/python_eval_internal.hpp"
#include "analyzer/source/source_file.hpp"

namespace trl::pyeval {

// A call of a library name: the call, the Symbol called (its qualified name, and its
// knowledge class when the knowledge describes it), and the scope it runs in.
struct LibraryCall {
  const py::Expr& e;
  const PyValue& callee;
  Scope& scope;
  int depth;
};

// A method call `receiver.name(...)` on a value the evaluator tracks: the call, its `fn`
// (the attribute expression) and the receiver's value.
struct MethodCall {
  const py::Expr& e;
  const py::Expr& fn;
  const ValueRef& self;
  Scope& scope;
  int depth;
};

// A model returns the call's value. It may decline with null, and then does so before it
// evaluates any argument: the call is evaluated as the next model that matches, or else as a
// library call nobody models (its arguments evaluated, an unknown result).
using CallModel = ValueRef (*)(Exec& ex, const LibraryCall& call);
using MethodModel = ValueRef (*)(Exec& ex, const MethodCall& call);

// ---- dispatch (registry.cpp) ----
// The value of a call of a library name; null when no model takes it.
ValueRef call_library(Exec& ex, const LibraryCall& call);
// The value of a method call on a library value; null when no model takes it.
ValueRef call_library_method(Exec& ex, const MethodCall& call);
// A builtin that names a library symbol when the script has not bound the name itself.
bool is_builtin_name(std::string_view name);

// ---- shared between families ----
// loaders.cpp: the values of a YAML or JSON file the script reads (see the definition).
ValueRef load_data_file(Exec& ex, const ValueRef& source, Span site, bool path_string = false,
                        FileKind kind = FileKind::Yaml);
// arg_parsers.cpp: a HfArgumentParser / TrlParser just built from `args`: the dataclasses it
// parses, and the parser recorded for the summary.
void arg_parser_built(Exec& ex, const std::shared_ptr<PyValue>& parser, const Args& args);

}  // namespace trl::pyeval
