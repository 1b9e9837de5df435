// Abstract values of the Python evaluator: known constants, containers, config objects
// under construction, project modules, user classes and functions, names of library symbols,
// "one of several" values after a branch, and Unknown. Immutable and shared.
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

// One step a value took on its way: "returned by make_config()", "merged from **defaults".
struct FlowStep {
  Span span;
  std::string note;
};

struct Member {
  std::string name;
  ValueRef value;
  Span set_at;  // `packing=True`, `args.packing = True`, the dict or YAML key
};

struct PyValue {
  enum class Kind { Unknown, Const, List, Tuple, Dict, Object, Symbol, Function, Module, Class, OneOf, Path };
  Kind kind = Kind::Unknown;
  Scalar constant;                   // Const
  std::vector<ValueRef> items;       // List, Tuple, OneOf alternatives
  std::vector<Member> members;       // Dict entries, Object fields set so far, Class attributes
  bool complete = true;              // Dict/Object: false when something unknown was merged in
  std::string qualified;             // Symbol/Module dotted name; Object/Class class name; Path text
  const ClassInfo* cls = nullptr;    // Object/Symbol/Class of (or derived from) a known library class
  bool from_parser = false;          // Object built by TrlParser/HfArgumentParser from argv/--config
  bool parser_reads_config = false;  // from_parser: by parse_args_and_config, which reads --config
  int object_id = 0;                 // identity of an Object across attribute assignments
  // Unknown: certainly not None (a dataset the datasets library loads or builds, a split or a
  // transform of one: these raise rather than return None).
  bool not_none = false;
  // Symbol: how many patchers (Knowledge::patchers) the script had imported when the name was
  // bound. A patcher that rebinds a class in its module leaves names bound before it unpatched.
  std::uint8_t patchers_bound = 0;
  int view_of = 0;  // Dict: `vars(obj)` / `obj.__dict__` of the Object with this object_id (one state)
  std::vector<ValueRef> parser_classes;    // Object of an arg parser: the dataclasses it parses
  py::StmtId function = 0;                 // Function: FunctionDef; Class: ClassDef
  FileId module_file = kNoFile;            // Function/Class/Module: the file that defines it
  std::vector<ValueRef> bound_positional;  // Function: functools.partial arguments, bound self
  std::vector<Member> bound_keywords;
  ValueRef user_class;                        // Object: instance of this user Class
  std::vector<std::string> dataclass_fields;  // Class: fields in declaration order
  bool is_dataclass = false;
  Span span;                    // where the value was written
  std::string parser_field;     // Unknown read as `<parsed args>.<field>`: the value argv/--config give
  std::vector<FlowStep> chain;  // how it got here

  const Member* member(std::string_view name) const;
  bool is_const() const { return kind == Kind::Const; }
};

ValueRef make_unknown(Span span = {});
ValueRef make_const(Scalar s, Span span);
// The same value having taken one more step (capped length).
ValueRef with_step(const ValueRef& v, Span span, std::string note);

// Two possibilities of one variable (after an `if`): the value when they agree, a OneOf of
// constants when they do not (at most 8 alternatives), field by field for the same object.
// `default_of` gives a class default for a field one side never set (may be null).
ValueRef merge_values(const ValueRef& a, const ValueRef& b);

}  // namespace trl
