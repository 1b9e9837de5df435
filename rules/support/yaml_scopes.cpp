#include "rules/support/yaml_scopes.hpp"

#include <set>

namespace trl::rules {

namespace {

const YamlNode* root_of(const Project& p, FileId id) {
  if (id == kNoFile || id >= p.facts.size() || p.facts[id].yaml.empty()) return nullptr;
  const auto& r = p.facts[id].yaml.front().root;
  return r && r->kind == YamlNode::Kind::Mapping ? r.get() : nullptr;
}

const FieldInfo* field_of(const Knowledge& k, const std::vector<const ClassInfo*>& classes, std::string_view name) {
  for (const ClassInfo* c : classes)
    if (const FieldInfo* f = k.field(*c, name)) return f;
  return nullptr;
}

}  // namespace

void for_each_yaml_key(const Project& project, const std::vector<TrainingRun>& runs,
                       const std::function<void(const YamlKeyUse&)>& visit) {
  const Knowledge& k = Knowledge::get();
  std::set<std::pair<FileId, std::uint32_t>> seen;
  auto once = [&](const YamlKeyUse& u) {
    if (seen.insert({u.file, u.entry->key_span.begin}).second) visit(u);
  };
  std::set<FileId> accelerate;
  for (const TrainingRun& run : runs) {
    if (run.accelerate_yaml != kNoFile) accelerate.insert(run.accelerate_yaml);
    std::vector<const ClassInfo*> classes = run.parser_classes;
    if (classes.empty() && run.config_class) classes.push_back(run.config_class);
    if (classes.empty()) continue;
    // The trainer YAML TrlParser reads.
    if (run.args_from_parser)
      if (const YamlNode* root = root_of(project, run.trainer_yaml))
        for (const auto& e : root->entries)
          if (const FieldInfo* f = field_of(k, classes, e.key))
            once({&e, f, YamlReader::TrlParser, "", &run, run.trainer_yaml});
    // Settings that came from a YAML file loaded in Python (yaml.safe_load -> Config(**d)).
    for (const auto& [key, s] : run.args) {
      if (s.origin != "Python" || !s.span.valid() || s.span.file >= project.sources.size() ||
          project.sources.get(s.span.file).kind != FileKind::Yaml)
        continue;
      const YamlNode* root = root_of(project, s.span.file);
      if (!root) continue;
      for (const auto& e : root->entries)
        if (e.key == key && e.key_span == s.span)
          if (const FieldInfo* f = field_of(k, classes, e.key))
            once({&e, f, YamlReader::PythonLoad, "", &run, s.span.file});
    }
  }
  for (FileId id = 0; id < project.sources.size(); ++id)
    if (const YamlNode* r = root_of(project, id); r && r->find("distributed_type") && r->find("compute_environment"))
      accelerate.insert(id);
  for (FileId id : accelerate) {
    const YamlNode* root = root_of(project, id);
    if (!root) continue;
    const auto* top = k.accelerate_section("accelerate_yaml");
    for (const auto& e : root->entries) {
      if (top)
        if (auto it = top->find(e.key); it != top->end())
          once({&e, &it->second, YamlReader::Accelerate, "accelerate_yaml", nullptr, id});
      if (e.value->kind != YamlNode::Kind::Mapping) continue;
      std::string prefix = e.key == "fsdp_config" ? "fsdp_" : e.key == "dynamo_config" ? "dynamo_" : "";
      const auto* keys = k.accelerate_section(e.key);
      if (!keys || e.key == "accelerate_yaml") continue;
      for (const auto& n : e.value->entries) {
        std::string key = !prefix.empty() && n.key.rfind(prefix, 0) != 0 ? prefix + n.key : n.key;
        if (auto it = keys->find(key); it != keys->end())
          once({&n, &it->second, YamlReader::Accelerate, e.key, nullptr, id});
      }
    }
  }
}

}  // namespace trl::rules
