// The tables of the library models: which model evaluates a call of a library name (by its
// qualified name, as imports resolve it: `yaml.safe_load`, `datasets.load_dataset`), and which
// evaluates a method call on a library value (by what the receiver is). Every model lives in
// the file of its family (library_models.hpp lists them); this file only dispatches.
//
// To model a new library call: write the model (`ValueRef model(Exec&, const LibraryCall&)`)
// in its family's file, declare it below, and add its name to kCallModels.
#include <cstddef>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/eval/models/library_models.hpp"
#include "analyzer/knowledge/knowledge.hpp"

namespace trl::pyeval {

// ---- the models (one line each; each lives in its family's file) ----
// library_classes.cpp
ValueRef construct_library_class(Exec& ex, const LibraryCall& call);
ValueRef training_arguments_setter(Exec& ex, const MethodCall& call);
// arg_parsers.cpp
ValueRef arg_parser_method(Exec& ex, const MethodCall& call);
// loaders.cpp
ValueRef open_path(Exec& ex, const LibraryCall& call);
ValueRef path_method(Exec& ex, const MethodCall& call);
ValueRef yaml_load(Exec& ex, const LibraryCall& call);
ValueRef omegaconf_load(Exec& ex, const LibraryCall& call);
ValueRef json_load(Exec& ex, const LibraryCall& call);
// stdlib.cpp
ValueRef builtin_dict(Exec& ex, const LibraryCall& call);
ValueRef builtin_setattr(Exec& ex, const LibraryCall& call);
ValueRef builtin_getattr(Exec& ex, const LibraryCall& call);
ValueRef builtin_conversion(Exec& ex, const LibraryCall& call);
ValueRef builtin_vars(Exec& ex, const LibraryCall& call);
ValueRef dataclasses_asdict(Exec& ex, const LibraryCall& call);
ValueRef dataclasses_replace(Exec& ex, const LibraryCall& call);
ValueRef functools_partial(Exec& ex, const LibraryCall& call);
ValueRef object_to_dict(Exec& ex, const MethodCall& call);
ValueRef dict_method(Exec& ex, const MethodCall& call);
// datasets.cpp
ValueRef dataset_loader(Exec& ex, const LibraryCall& call);
ValueRef dataset_method(Exec& ex, const MethodCall& call);
// pretrained_models.cpp
ValueRef pretrained_model_load(Exec& ex, const LibraryCall& call);

namespace {

// How an entry's text matches a qualified name.
enum class Match { Name, Prefix, Suffix };

struct CallModelEntry {
  std::string_view text;
  Match match;
  CallModel model;
};

// The library calls the evaluator models, by qualified name. A name is looked up as a whole
// name first, then among the prefixes, then the suffixes, each in table order; a model that
// declines (null) hands the call to the next match. A bare name (`dict`, `asdict`) matches a
// symbol of just that name: a builtin the script has not rebound (is_builtin_name), or a
// module imported under that name.
constexpr CallModelEntry kCallModels[] = {
    // Python builtins and standard library (stdlib.cpp).
    {"dict", Match::Name, &builtin_dict},
    {"setattr", Match::Name, &builtin_setattr},
    {"getattr", Match::Name, &builtin_getattr},
    {"int", Match::Name, &builtin_conversion},
    {"float", Match::Name, &builtin_conversion},
    {"str", Match::Name, &builtin_conversion},
    {"bool", Match::Name, &builtin_conversion},
    {"vars", Match::Name, &builtin_vars},
    {"dataclasses.asdict", Match::Name, &dataclasses_asdict},
    {"asdict", Match::Name, &dataclasses_asdict},
    {"dataclasses.replace", Match::Name, &dataclasses_replace},
    {"replace", Match::Name, &dataclasses_replace},
    {"functools.partial", Match::Name, &functools_partial},
    {"partial", Match::Name, &functools_partial},
    // Files and the loaders that read them (loaders.cpp).
    {"open", Match::Name, &open_path},
    {"pathlib.Path", Match::Name, &open_path},
    {"Path", Match::Name, &open_path},
    {"pathlib.PurePath", Match::Name, &open_path},
    {"yaml.safe_load", Match::Name, &yaml_load},
    {"yaml.load", Match::Name, &yaml_load},
    {"yaml.full_load", Match::Name, &yaml_load},
    {"omegaconf.OmegaConf.load", Match::Name, &omegaconf_load},
    {"json.load", Match::Name, &json_load},
    {"json.loads", Match::Name, &json_load},
    // The datasets library's loaders and builders (datasets.cpp).
    {"datasets.load_dataset", Match::Name, &dataset_loader},
    {"datasets.load_from_disk", Match::Name, &dataset_loader},
    {"datasets.concatenate_datasets", Match::Name, &dataset_loader},
    {"datasets.interleave_datasets", Match::Name, &dataset_loader},
    {"datasets.Dataset.from_", Match::Prefix, &dataset_loader},
    {"datasets.DatasetDict.from_", Match::Prefix, &dataset_loader},
    {"datasets.IterableDataset.from_", Match::Prefix, &dataset_loader},
    {"datasets.arrow_dataset.Dataset.from_", Match::Prefix, &dataset_loader},
    // Models loaded by transformers and peft classes (pretrained_models.cpp).
    {".from_pretrained", Match::Suffix, &pretrained_model_load},
};

// Each text once in kCallModels: a second entry for it would never be reached.
constexpr bool each_text_once() {
  for (std::size_t i = 0; i < std::size(kCallModels); ++i)
    for (std::size_t j = i + 1; j < std::size(kCallModels); ++j)
      if (kCallModels[i].text == kCallModels[j].text && kCallModels[i].match == kCallModels[j].match) return false;
  return true;
}
static_assert(each_text_once(), "kCallModels names a text twice");

// kCallModels indexed: whole names in a map, prefixes and suffixes in table order.
struct CallIndex {
  std::map<std::string_view, CallModel, std::less<>> names;
  std::vector<const CallModelEntry*> prefixes, suffixes;

  CallIndex() {
    for (const auto& entry : kCallModels) {
      if (entry.match == Match::Name) names.emplace(entry.text, entry.model);
      if (entry.match == Match::Prefix) prefixes.push_back(&entry);
      if (entry.match == Match::Suffix) suffixes.push_back(&entry);
    }
  }
};

const CallIndex& call_index() {
  static const CallIndex index;
  return index;
}

struct MethodModelEntry {
  bool (*receiver)(const PyValue& self);
  MethodModel model;
};

// The method calls the evaluator models, by receiver, in order: the first model whose receiver
// test holds and that does not decline gives the call's value.
constexpr MethodModelEntry kMethodModels[] = {
    // A dataset (known not to be None): datasets.cpp.
    {[](const PyValue& self) { return self.kind == PyValue::Kind::Unknown && self.not_none; }, &dataset_method},
    // A trainer config of a library class (not of a user subclass): library_classes.cpp.
    {[](const PyValue& self) {
       return self.kind == PyValue::Kind::Object && !self.user_class && self.cls &&
              self.cls->role == ClassRole::TrainerConfig;
     },
     &training_arguments_setter},
    // HfArgumentParser / TrlParser: arg_parsers.cpp.
    {[](const PyValue& self) {
       return self.kind == PyValue::Kind::Object && self.cls && self.cls->role == ClassRole::ArgParser;
     },
     &arg_parser_method},
    // A dict: stdlib.cpp.
    {[](const PyValue& self) { return self.kind == PyValue::Kind::Dict; }, &dict_method},
    // A path or open file: loaders.cpp.
    {[](const PyValue& self) { return self.kind == PyValue::Kind::Path; }, &path_method},
    // Any object, of a user class too (before the class's own methods): stdlib.cpp.
    {[](const PyValue& self) { return self.kind == PyValue::Kind::Object; }, &object_to_dict},
};

}  // namespace

ValueRef call_library(Exec& ex, const LibraryCall& call) {
  // A class the knowledge describes (rules/knowledge/roles.yaml), whatever its name.
  if (call.callee.cls) return construct_library_class(ex, call);
  const std::string& q = call.callee.qualified;
  const CallIndex& index = call_index();
  if (auto it = index.names.find(q); it != index.names.end())
    if (ValueRef v = it->second(ex, call)) return v;
  for (const CallModelEntry* entry : index.prefixes)
    if (q.rfind(entry->text, 0) == 0)
      if (ValueRef v = entry->model(ex, call)) return v;
  for (const CallModelEntry* entry : index.suffixes)
    if (q.size() >= entry->text.size() &&
        q.compare(q.size() - entry->text.size(), entry->text.size(), entry->text) == 0)
      if (ValueRef v = entry->model(ex, call)) return v;
  return nullptr;
}

ValueRef call_library_method(Exec& ex, const MethodCall& call) {
  for (const auto& entry : kMethodModels)
    if (entry.receiver(*call.self))
      if (ValueRef v = entry.model(ex, call)) return v;
  return nullptr;
}

// The builtins kCallModels models, and len, list and tuple (no model: unknown values).
bool is_builtin_name(std::string_view name) {
  static const std::set<std::string, std::less<>> builtins = {"dict",    "int",  "float", "str", "bool", "setattr",
                                                              "getattr", "vars", "open",  "len", "list", "tuple"};
  return builtins.count(name) != 0;
}

}  // namespace trl::pyeval
