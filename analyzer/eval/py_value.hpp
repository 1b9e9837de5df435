// Abstract values of the Python evaluator: known constants, containers, config objects
// under construction, names of library symbols, and Unknown. Immutable and shared.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/facts/python_ir.hpp"
#include "analyzer/facts/scalar.hpp"

namespace trl {

struct ClassInfo;
struct PyValue;
using ValueRef = std::shared_ptr<const PyValue>;

// One step a value took on its way: "returned from make_config()", "merged from **defaults".
struct FlowStep {
  Span span;
  std::string note;
};

struct Member {
  std::string name;
  ValueRef value;
  Span set_at;  // `packing=True`, `args.packing = True`, the dict key
};

struct PyValue {
  enum class Kind { Unknown, Const, List, Tuple, Dict, Object, Symbol, Function };
  Kind kind = Kind::Unknown;
  Scalar constant;                       // Const
  std::vector<ValueRef> items;           // List, Tuple
  std::vector<Member> members;           // Dict entries (str keys) and Object fields set so far
  bool complete = true;                  // Dict: false when an unknown mapping was merged in
  std::string qualified;                 // Symbol: `trl.SFTConfig`; Object: its class's qualified name
  const ClassInfo* cls = nullptr;        // Object and Symbol of a known class
  bool from_parser = false;              // Object built by TrlParser/HfArgumentParser from argv/--config
  int object_id = 0;                     // identity of an Object across attribute assignments
  std::vector<ValueRef> parser_classes;  // Object of an arg parser: the dataclasses it parses
  py::StmtId function = 0;               // Function: its FunctionDef statement
  const void* module = nullptr;          // Function: the module it belongs to
  Span span;                             // where the value was written
  std::string parser_field;              // Unknown read as `<parsed args>.<field>`: the value argv/--config give
  std::vector<FlowStep> chain;           // how it got here

  const Member* member(std::string_view name) const;
  bool is_const() const { return kind == Kind::Const; }
};

ValueRef make_unknown(Span span = {});
ValueRef make_const(Scalar s, Span span);

// Two possibilities of one variable (after an `if`): the value when they agree, Unknown otherwise.
ValueRef merge_values(const ValueRef& a, const ValueRef& b);

}  // namespace trl
