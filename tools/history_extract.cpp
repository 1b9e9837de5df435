// history_extract: what tools/knowledge_history.py reads of a release's modules, through
// trl-lint's own Python extraction (analyzer/eval/installed_classes.hpp, scan_module). Not part
// of trl-lint; the generator runs it once per release tag.
//
// Input (standard input), for each module: a line `PATH<TAB>SIZE`, then SIZE bytes of its text.
// Output (standard output), one JSON object:
//   {"modules": [{"path": ..., "enums": {"IntervalStrategy": ["no", ...]},
//                 "dataclasses": [{"name": ..., "bases": [...], "enum_conversions": {"f": "E"},
//                                  "fields": [{"name": ..., "type": ..., "default": ...,
//                                              "nullable": ..., "choices": [...],
//                                              "choices_from_help": ..., "deprecated": ...}]}],
//                 "trainers": [{"name": ..., "bases": ["transformers.Trainer"],
//                               "init": null | {"forwards_all": ..., "aliases": [[old, new]],
//                                               "params": [{"name": ..., "pos": ..., "kind": ...,
//                                                           "required": ..., "default": ...,
//                                                           "deprecated": ...}]}}],
//                 "imports": [{"level": 1, "module": "utils", "names": [[name, alias]]}],
//                 "options": [{"names": ["--num_processes"], "action": "", "type": "int",
//                              "choices": [...], "help": ...}]}]}
// A field or parameter has "default" only when its default is a literal; an option has "type"
// and "choices" only when the call passes them. ModuleScan (installed_classes.hpp) says what each
// is.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "analyzer/eval/installed_classes.hpp"

namespace {

nlohmann::json scalar_json(const trl::Scalar& v) {
  switch (v.kind) {
    case trl::Scalar::Kind::Bool: return v.b;
    case trl::Scalar::Kind::Int: return v.i;
    case trl::Scalar::Kind::Float: return v.f;
    case trl::Scalar::Kind::Str: return v.s;
    default: return nullptr;
  }
}

}  // namespace

int main() {
  nlohmann::json modules = nlohmann::json::array();
  std::string header;
  while (std::getline(std::cin, header)) {
    const auto tab = header.rfind('\t');
    if (tab == std::string::npos) {
      std::cerr << "history_extract: expected `PATH<TAB>SIZE`, got: " << header << '\n';
      return 2;
    }
    const std::string path = header.substr(0, tab);
    const std::string digits = header.substr(tab + 1);
    if (digits.empty() || digits.size() > 12 || digits.find_first_not_of("0123456789") != std::string::npos) {
      std::cerr << "history_extract: " << path << ": `" << digits << "` is not a size in bytes\n";
      return 2;
    }
    const std::size_t size = std::stoul(digits);
    std::string text(size, '\0');
    if (size && !std::cin.read(text.data(), static_cast<std::streamsize>(size))) {
      std::cerr << "history_extract: " << path << ": the input ends before " << size << " bytes\n";
      return 2;
    }
    const trl::ModuleScan scan = trl::scan_module(path, text);
    nlohmann::json m{{"path", path}, {"enums", nlohmann::json::object()}, {"dataclasses", nlohmann::json::array()}};
    for (const auto& [name, values] : scan.enums) m["enums"][name] = values;
    for (const auto& c : scan.dataclasses) {
      nlohmann::json cls{{"name", c.name},
                         {"bases", c.bases},
                         {"enum_conversions", nlohmann::json::object()},
                         {"fields", nlohmann::json::array()}};
      for (const auto& [field, en] : c.enum_conversions) cls["enum_conversions"][field] = en;
      for (const auto& [name, f] : c.fields) {
        nlohmann::json j{{"name", name},
                         {"type", f.info.type},
                         {"nullable", f.info.nullable},
                         {"choices", f.info.choices},
                         {"choices_from_help", f.choices_from_help},
                         {"deprecated", f.deprecated}};
        if (f.info.has_default) j["default"] = scalar_json(f.info.default_value);
        cls["fields"].push_back(std::move(j));
      }
      m["dataclasses"].push_back(std::move(cls));
    }
    m["trainers"] = nlohmann::json::array();
    for (const auto& t : scan.trainers) {
      nlohmann::json tj{{"name", t.name}, {"bases", t.bases}, {"init", nullptr}};
      if (t.init) {
        nlohmann::json params = nlohmann::json::array();
        for (const auto& p : t.init->params) {
          nlohmann::json pj{{"name", p.name},
                            {"pos", p.pos},
                            {"kind", p.kind},
                            {"required", p.required},
                            {"deprecated", p.deprecated}};
          if (p.has_default) pj["default"] = scalar_json(p.default_value);
          params.push_back(std::move(pj));
        }
        nlohmann::json aliases = nlohmann::json::array();
        for (const auto& [old_name, new_name] : t.init->aliases) aliases.push_back({old_name, new_name});
        tj["init"] = {{"params", params}, {"aliases", aliases}, {"forwards_all", t.init->forwards_all}};
      }
      m["trainers"].push_back(std::move(tj));
    }
    m["imports"] = nlohmann::json::array();
    for (const auto& i : scan.imports) {
      nlohmann::json names = nlohmann::json::array();
      for (const auto& [name, alias] : i.names) names.push_back({name, alias});
      m["imports"].push_back({{"level", i.level}, {"module", i.module}, {"names", names}});
    }
    m["options"] = nlohmann::json::array();
    for (const auto& o : scan.options) {
      nlohmann::json oj{{"names", o.names}, {"action", o.action}, {"help", o.help}};
      if (o.has_type) oj["type"] = o.type;
      if (o.has_choices) oj["choices"] = o.choices;
      m["options"].push_back(std::move(oj));
    }
    modules.push_back(std::move(m));
  }
  // Text that is not UTF-8 (the generator sends UTF-8, with U+FFFD for what was not) is replaced.
  std::cout << nlohmann::json{{"modules", modules}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
            << '\n';
  return 0;
}
