// Knowledge from the YAML files themselves (yaml-cpp): used by the build-time generator
// (tools/knowledge_gen.cpp) and by tests that compare the embedded blob with the YAML.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <stdexcept>

#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/yaml/pyyaml_resolver.hpp"

namespace trl {

namespace {

ClassRole parse_role(const std::string& r) {
  if (r == "trainer_config") return ClassRole::TrainerConfig;
  if (r == "trainer") return ClassRole::Trainer;
  if (r == "parallelism_config") return ClassRole::ParallelismConfig;
  if (r == "accelerator") return ClassRole::Accelerator;
  if (r == "arg_parser") return ClassRole::ArgParser;
  if (r == "script_args") return ClassRole::ScriptArgs;
  if (r == "model_config") return ClassRole::ModelConfig;
  return ClassRole::Unknown;
}

Scalar to_scalar(const YAML::Node& n) {
  if (!n || n.IsNull()) return Scalar::null();
  if (!n.IsScalar()) return Scalar::string("<" + std::string(n.IsSequence() ? "list" : "dict") + ">");
  // yaml-cpp gives the text; "!" marks a quoted scalar (non-plain) in its tag.
  if (n.Tag() == "!") return Scalar::string(n.Scalar());
  return yaml::resolve_plain(n.Scalar());
}

}  // namespace

Knowledge Knowledge::from_texts(const std::vector<std::pair<std::string, std::string>>& files) {
  Knowledge k;
  for (const auto& [name, text] : files) k.load(name, text);
  return k;
}

void Knowledge::load(const std::string& file, const std::string& text) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error("knowledge file " + file + ": " + e.what());
  }
  if (auto classes = root["classes"]) {
    for (auto it = classes.begin(); it != classes.end(); ++it) {
      const std::string name = it->first.as<std::string>();
      const YAML::Node c = it->second;
      ClassInfo& info = classes_[name];
      info.name = name;
      if (c["package"]) info.package = c["package"].as<std::string>();
      if (c["role"]) info.role = parse_role(c["role"].as<std::string>());
      if (c["trainer"]) info.trainer = c["trainer"].as<std::string>();
      if (c["source"]) info.source = c["source"].as<std::string>();
      if (c["bases"])
        for (const auto& b : c["bases"]) {
          auto base = b.as<std::string>();
          if (std::find(info.bases.begin(), info.bases.end(), base) == info.bases.end()) info.bases.push_back(base);
        }
      if (auto fields = c["fields"]) {
        for (auto f = fields.begin(); f != fields.end(); ++f) {
          FieldInfo field;
          field.name = f->first.as<std::string>();
          const YAML::Node d = f->second;
          if (d.IsMap()) {
            if (d["type"]) field.type = d["type"].as<std::string>();
            if (d["default"]) {
              field.has_default = true;
              field.default_value = to_scalar(d["default"]);
            }
            if (d["nullable"]) field.nullable = d["nullable"].as<bool>();
            if (d["choices"])
              for (const auto& ch : d["choices"]) field.choices.push_back(ch.as<std::string>());
            if (d["source"]) field.source = d["source"].as<std::string>();
          }
          if (field.source.empty()) field.source = info.source;
          info.fields[field.name] = std::move(field);
        }
      }
    }
  }
  if (auto profiles = root["accelerate_profiles"]) {
    for (auto it = profiles.begin(); it != profiles.end(); ++it) {
      AccelerateProfile p;
      p.name = it->first.as<std::string>();
      for (auto kv = it->second.begin(); kv != it->second.end(); ++kv) {
        const std::string key = kv->first.as<std::string>();
        if (key == "source")
          p.source = kv->second.as<std::string>();
        else
          p.values[key] = to_scalar(kv->second);
      }
      if (p.source.empty())
        throw std::runtime_error("knowledge file " + file + ": profile " + p.name + " has no source");
      profiles_[p.name] = std::move(p);
    }
  }
  if (auto flags = root["launch_flags"]) {
    for (auto it = flags.begin(); it != flags.end(); ++it) {
      LaunchFlag flag;
      flag.name = it->first.as<std::string>();
      const YAML::Node d = it->second;
      if (d.IsMap()) {
        if (d["value"]) flag.takes_value = d["value"].as<bool>();
        if (d["type"]) flag.type = d["type"].as<std::string>();
        if (d["aliases"])
          for (const auto& a : d["aliases"]) launch_flags_[a.as<std::string>()] = flag;
      }
      launch_flags_[flag.name] = flag;
    }
  }
}

}  // namespace trl
