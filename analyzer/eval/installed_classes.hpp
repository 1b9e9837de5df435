// A library release newer than trl-lint's knowledge, judged from its installed source: the
// configuration dataclasses are read from the environment's site-packages with trl-lint's own
// Python extraction (never imported or run), the way tools/knowledge_history.py reads each
// release for the generated history: annotated fields, their type, literal default, `choices`
// (field metadata, a `Literal[...]` annotation, or help text that says "must be one of"), and the
// fields of dataclass bases of the same package flattened in.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/eval/version_target.hpp"
#include "analyzer/knowledge/knowledge.hpp"

namespace trl {

// `cls` (a class of the knowledge, or as the history has it at the target release) with what
// the installed source says, when a library's target is newer than the knowledge and was read
// from an environment (VersionTarget::installed_site):
//  - `cls`'s own library is: the class as its installed source defines it; a base the package
//    does not define (TRL's configs derive from transformers' TrainingArguments) stays a base,
//    looked up in the knowledge;
//  - the library of one of its bases is: that base's installed fields flattened in (the class's
//    own declarations win).
// Null when neither applies, or the source is not found or not readable. Read once per (source,
// class) and kept for the life of the process. ClassInfo::source names the file read.
const ClassInfo* installed_class(const Knowledge& k, const ClassInfo& cls, const VersionTargets& targets);

// The keywords the `__init__` of `trainer` takes, as the installed source of its library defines
// it, when that library's target is newer than the knowledge and was read from an environment:
// the parameters after self and the old names `deprecate_kwarg` maps onto them, through the
// package's own bases when the class has no `__init__`. Nothing otherwise, or when the source
// cannot say (not found, **kwargs, a base outside the package). `source` names the file read.
std::optional<Knowledge::TrainerKeywords> installed_trainer_keywords(const Knowledge& k, const ClassInfo& trainer,
                                                                     const VersionTargets& targets);

// Reads the dataclass `name` from the Python source `text` of module `module_path` (a path under
// a site-packages folder, `trl/trainer/sft_config.py`) and from the modules of `site` it imports
// its bases from. Exposed for tests; `site` may be empty (no imports followed).
struct ReadClass {
  bool found = false;
  std::vector<std::string> bases;  // bases the package does not define, as named
  std::map<std::string, FieldInfo, std::less<>> fields;
  std::string file;  // module path the class was read from
};
ReadClass read_dataclass(const std::string& site, const std::string& module_path, const std::string& text,
                         const std::string& name);

// What tools/knowledge_history.py reads of one module of a release, through trl-lint's own
// Python extraction (tools/history_extract.cpp prints it): every top-level `@dataclass` with the
// fields its body declares (as read_dataclass reads them, without its bases' fields), whether
// each field's help text says "deprecated" and whether its choices come from help text that says
// "must be one of"; the fields its `__post_init__` converts to an enum (`self.f = E(self.f)`, at
// any depth of the body); and every enum class (a base named `*Enum`) with its members' string
// values.
struct ModuleScan {
  struct Field {
    FieldInfo info;
    bool deprecated = false;
    bool choices_from_help = false;
  };
  struct Class {
    std::string name;
    std::vector<std::string> bases;                                     // as named (last component)
    std::vector<std::pair<std::string, Field>> fields;                  // declaration order
    std::vector<std::pair<std::string, std::string>> enum_conversions;  // field, enum
  };
  std::vector<Class> dataclasses;
  std::vector<std::pair<std::string, std::vector<std::string>>> enums;
  // Classes named `*Trainer`: the parameters of their own `__init__` after self (position, kind:
  // pos, varargs, kw, varkw; required, or its literal default) and the ones the source deprecates
  // (listed by `_deprecate_arguments(deprecated_args=[...])`, named by `deprecate_kwarg`, or
  // tested in an `if` that warns "The `p` argument is deprecated"); the old names
  // `deprecate_kwarg(old, ..., new_name)` takes in place of a parameter; and whether it only
  // passes `*args`/`**kwargs` on to `super().__init__`.
  struct Param {
    std::string name;
    int pos = 0;
    std::string kind;
    bool required = false;
    bool has_default = false;
    Scalar default_value;
    bool deprecated = false;
  };
  struct Init {
    std::vector<Param> params;
    std::vector<std::pair<std::string, std::string>> aliases;  // old name, new name ("" unknown)
    bool forwards_all = false;
  };
  struct Trainer {
    std::string name;
    std::vector<std::string> bases;  // as written (`transformers.Trainer`)
    std::optional<Init> init;        // none: the class has no __init__ of its own
  };
  std::vector<Trainer> trainers;
  // The module's `from X import a as b` statements (top level, or in with/if/try blocks), read
  // when it defines a trainer: the generator follows a trainer's base through them.
  struct ImportFrom {
    int level = 0;
    std::string module;
    std::vector<std::pair<std::string, std::string>> names;  // name, alias ("" none)
  };
  std::vector<ImportFrom> imports;
  // The `add_argument` calls of a `launch_command_parser` function (accelerate launch).
  struct Option {
    std::vector<std::string> names;  // the string constants passed by position (`--name`, `-n`)
    std::string action;
    bool has_type = false;
    std::string type;  // the `type=` expression as written
    bool has_choices = false;
    std::vector<std::string> choices;
    std::string help;
  };
  std::vector<Option> options;
};
ModuleScan scan_module(const std::string& path, const std::string& text);

}  // namespace trl
