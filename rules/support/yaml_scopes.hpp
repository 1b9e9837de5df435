// The YAML mappings a run reads, with the fields each key binds to: the trainer YAML (top-level
// keys -> the run's dataclasses), a YAML loaded in Python into a config, and accelerate config
// YAMLs (top level and nested sections). Shared by the YAML value rules (TRL002, TRL003, TRL005).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analyzer/eval/training_run.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/project/project.hpp"

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

// Calls `visit` once per (file, key) with the field it binds to; keys without a known field are skipped.
void for_each_yaml_key(const Project& project, const std::vector<TrainingRun>& runs,
                       const std::function<void(const YamlKeyUse&)>& visit);

}  // namespace trl::rules
