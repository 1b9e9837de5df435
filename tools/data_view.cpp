// data_view: prints what trl-lint reads in YAML and JSON files, one JSON line a file, so that a
// test can compare it with what Python reads (tests/yaml_diff/yaml_diff.py).
//
//   data_view FILE...
//
// Each line: {"path": ..., "ok": true, "documents": [...]} or {"path": ..., "ok": false,
// "code": "TRL903", "message": ..., "line": L, "column": C} (1-based, as trl-lint reports).
// Values: null, true/false, strings as JSON strings, {"int": "12"}, {"float": "1.0000000000000001e-05"},
// {"timestamp": "2024-01-01"}, lists, and mappings keyed by the text trl-lint gives each key
// (str() of the Python key). An unreadable node is {"invalid": true}.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "analyzer/facts/yaml_node.hpp"
#include "analyzer/json/json_extractor.hpp"
#include "analyzer/yaml/yaml_extractor.hpp"

namespace {

nlohmann::json view(const trl::YamlNode* n) {
  using Kind = trl::YamlNode::Kind;
  if (!n) return nullptr;
  switch (n->kind) {
    case Kind::Scalar: {
      const trl::Scalar& s = n->scalar;
      switch (s.kind) {
        case trl::Scalar::Kind::Null: return nullptr;
        case trl::Scalar::Kind::Bool: return s.b;
        case trl::Scalar::Kind::Int: return {{"int", std::to_string(s.i)}};
        case trl::Scalar::Kind::Float: {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.17g", s.f);
          return {{"float", std::string(buf)}};
        }
        case trl::Scalar::Kind::Str: return s.s;
        case trl::Scalar::Kind::Timestamp: return {{"timestamp", s.s}};
      }
      return nullptr;
    }
    case Kind::Sequence: {
      auto a = nlohmann::json::array();
      for (const auto& it : n->items) a.push_back(view(it.get()));
      return a;
    }
    case Kind::Mapping: {
      auto o = nlohmann::json::object();
      for (const auto& e : n->entries) o[e.key] = view(e.value.get());
      return o;
    }
    case Kind::Invalid: break;
  }
  return {{"invalid", true}};
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string path = argv[i];
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const bool is_json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
    trl::yaml::YamlFacts facts = is_json ? trl::json::extract(text, 0) : trl::yaml::extract(text, 0);
    nlohmann::json out;
    out["path"] = path;
    out["ok"] = true;
    for (const auto& p : facts.problems) {
      if (p.code != "TRL903") continue;
      out["ok"] = false;
      out["code"] = p.code;
      out["message"] = p.message;
      out["line"] = p.span.start.line + 1;
      out["column"] = p.span.start.column + 1;
      break;
    }
    if (out["ok"].get<bool>()) {
      auto docs = nlohmann::json::array();
      for (const auto& d : facts.documents) docs.push_back(view(d.root.get()));
      out["documents"] = docs;
    }
    std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  }
  return 0;
}
