#include "rules/support/yaml_scopes.hpp"

#include <set>

namespace trl::rules {

namespace {

const FieldInfo* field_of(const Knowledge& k, const std::vector<const ClassInfo*>& classes, std::string_view name) {
  for (const ClassInfo* c : classes)
    if (const FieldInfo* f = k.field(*c, name)) return f;
  return nullptr;
}

}  // namespace

void for_each_run_yaml_key(const RuleContext& context, const TrainingRun& run,
                           const std::function<void(const YamlKeyUse&)>& visit) {
  const Knowledge& k = Knowledge::get();
  std::set<std::pair<FileId, std::uint32_t>> seen;
  auto once = [&](const YamlKeyUse& u) {
    if (seen.insert({u.file, u.entry->key_span.begin}).second) visit(u);
  };
  std::vector<const ClassInfo*> classes = run.parser_classes;
  if (classes.empty() && run.config_class) classes.push_back(run.config_class);
  if (classes.empty()) return;
  // The trainer YAML TrlParser reads.
  if (run.args_from_parser)
    if (const YamlNode* root = context.yaml_root(run.trainer_yaml))
      for (const auto& e : root->entries)
        if (const FieldInfo* f = field_of(k, classes, e.key))
          once({&e, f, YamlReader::TrlParser, "", &run, run.trainer_yaml});
  // Settings that came from a YAML file loaded in Python (yaml.safe_load -> Config(**d)).
  for (const auto& [key, s] : run.args) {
    const SourceFile* written = s.span.valid() ? context.file(s.span.file) : nullptr;
    if (s.origin != Origin::Python || !written || written->kind != FileKind::Yaml) continue;
    const YamlNode* root = context.yaml_root(s.span.file);
    if (!root) continue;
    for (const auto& e : root->entries)
      if (e.key == key && e.key_span == s.span)
        if (const FieldInfo* f = field_of(k, classes, e.key))
          once({&e, f, YamlReader::PythonLoad, "", &run, s.span.file});
  }
}

bool is_accelerate_yaml(const RuleContext& context, FileId file, const FileUses& uses) {
  const YamlNode* r = context.yaml_root(file);
  return r && (!uses.accelerate.empty() || (r->find("distributed_type") && r->find("compute_environment")));
}

void for_each_accelerate_yaml_key(const RuleContext& context, FileId file, const FileUses& uses,
                                  const std::function<void(const YamlKeyUse&)>& visit) {
  if (!is_accelerate_yaml(context, file, uses)) return;
  const Knowledge& k = Knowledge::get();
  const YamlNode* root = context.yaml_root(file);
  const auto* top = k.accelerate_section("accelerate_yaml");
  for (const auto& e : root->entries) {
    if (top)
      if (auto it = top->find(e.key); it != top->end())
        visit({&e, &it->second, YamlReader::Accelerate, "accelerate_yaml", nullptr, file});
    if (e.value->kind != YamlNode::Kind::Mapping) continue;
    std::string prefix = e.key == "fsdp_config" ? "fsdp_" : e.key == "dynamo_config" ? "dynamo_" : "";
    const auto* keys = k.accelerate_section(e.key);
    if (!keys || e.key == "accelerate_yaml") continue;
    for (const auto& n : e.value->entries) {
      std::string key = !prefix.empty() && n.key.rfind(prefix, 0) != 0 ? prefix + n.key : n.key;
      if (auto it = keys->find(key); it != keys->end())
        visit({&n, &it->second, YamlReader::Accelerate, e.key, nullptr, file});
    }
  }
}

}  // namespace trl::rules
