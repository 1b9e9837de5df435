// The YAML mappings a run reads, with the fields each key binds to: the trainer YAML (top-level
// keys -> the run's dataclasses), a YAML loaded in Python into a config, and accelerate config
// YAMLs (top level and nested sections). Shared by the YAML value rules (TRL002, TRL003, TRL005).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analyzer/eval/training_run.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "rules/rule_context.hpp"

namespace trl::rules {

enum class YamlReader { TrlParser, PythonLoad, Accelerate };

struct YamlKeyUse {
  const YamlEntry* entry = nullptr;
  const FieldInfo* field = nullptr;
  YamlReader reader = YamlReader::TrlParser;
  std::string section;               // accelerate: "accelerate_yaml", "fsdp_config", ...
  const TrainingRun* run = nullptr;  // null for accelerate YAMLs not tied to a run
  FileId file = kNoFile;
};

// Calls `visit` once per key of the YAML files `run` reads (its trainer YAML through TrlParser, a
// YAML loaded in Python into its config), with the field it binds to; keys without a known field
// are skipped. Several runs may visit one key: findings made there set a merge key.
void for_each_run_yaml_key(const RuleContext& context, const TrainingRun& run,
                           const std::function<void(const YamlKeyUse&)>& visit);

// Whether `file` is read as an accelerate config: some launch reads it (`uses`), or its first
// document has both `distributed_type` and `compute_environment`.
bool is_accelerate_yaml(const RuleContext& context, FileId file, const FileUses& uses);
// Calls `visit` once per key of `file` read as an accelerate config (is_accelerate_yaml), at the
// top level and in the nested sections, with the field it binds to (no run: YamlKeyUse::run null).
void for_each_accelerate_yaml_key(const RuleContext& context, FileId file, const FileUses& uses,
                                  const std::function<void(const YamlKeyUse&)>& visit);

}  // namespace trl::rules
