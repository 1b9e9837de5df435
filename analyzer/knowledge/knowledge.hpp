// The library knowledge of rules/knowledge/*.yaml, loaded once: config classes with their roles
// and fields, and `accelerate launch` options. The YAML files are the single source of truth;
// at build time tools/knowledge_gen.cpp reads them (with from_texts) and embeds the result as a
// compact binary blob (to_blob), which get() decodes on first use in well under a millisecond
// instead of parsing YAML at every start.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/facts/scalar.hpp"

namespace trl {

struct FieldInfo {
  std::string name;
  std::string type;  // bool, int, float, str, dict, list, object ("" when not recorded)
  bool has_default = false;
  Scalar default_value;
  bool nullable = false;
  std::vector<std::string> choices;
  std::string source;  // file@version the fact was read from
};

enum class ClassRole {
  Unknown,
  TrainerConfig,
  Trainer,
  ParallelismConfig,
  Accelerator,
  ArgParser,
  ScriptArgs,
  ModelConfig
};

struct ClassInfo {
  std::string name;
  std::string package;
  ClassRole role = ClassRole::Unknown;
  std::string trainer;  // sft, grpo, dpo, ... for trainers and their configs
  std::vector<std::string> bases;
  std::map<std::string, FieldInfo, std::less<>> fields;
  std::string source;
};

struct LaunchFlag {
  std::string name;
  bool takes_value = true;
  std::string type;
};

// One of TRL's bundled accelerate configs (`trl sft --accelerate_config zero3`).
struct AccelerateProfile {
  std::string name;
  std::map<std::string, Scalar, std::less<>> values;  // distributed_type, num_processes, ...
  std::string source;
};

class Knowledge {
 public:
  // The embedded knowledge; loaded on first use. Throws std::runtime_error on malformed data
  // (a build defect, caught by the test suite).
  static const Knowledge& get();
  // Loads from YAML texts (file name, text): the build-time generator and tests. Throws
  // std::runtime_error on malformed data. Defined in knowledge_yaml.cpp (yaml-cpp).
  static Knowledge from_texts(const std::vector<std::pair<std::string, std::string>>& files);
  // The compact binary form, and back. from_blob throws std::runtime_error on a truncated or
  // malformed blob.
  std::string to_blob() const;
  static Knowledge from_blob(std::string_view blob);
  // The embedded blob, and a 64-bit hash of it (part of the cache key: new knowledge, new results).
  static std::string_view embedded_blob();
  static std::uint64_t embedded_version();

  // Finds a class by a qualified name such as `trl.SFTConfig` or `trl.trainer.sft_config.SFTConfig`:
  // the last component names the class, the first must be its package.
  const ClassInfo* find_qualified(std::string_view qualified) const;
  const ClassInfo* find(std::string_view name) const;
  // A field of `cls` or of one of its bases.
  const FieldInfo* field(const ClassInfo& cls, std::string_view name) const;
  // True when `cls` is `ancestor` or derives from it.
  bool derives_from(const ClassInfo& cls, std::string_view ancestor) const;
  const LaunchFlag* launch_flag(std::string_view name) const;
  const AccelerateProfile* accelerate_profile(std::string_view name) const;
  const std::map<std::string, ClassInfo, std::less<>>& classes() const { return classes_; }

 private:
  void load(const std::string& name, const std::string& text);
  std::map<std::string, ClassInfo, std::less<>> classes_;
  std::map<std::string, LaunchFlag, std::less<>> launch_flags_;
  std::map<std::string, AccelerateProfile, std::less<>> profiles_;
};

}  // namespace trl
