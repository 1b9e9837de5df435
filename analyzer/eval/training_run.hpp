// The effective configuration of one training run: trainer, trainer arguments and the
// parallel topology, every value with where it was set.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/facts/scalar.hpp"
#include "analyzer/link/launch.hpp"

namespace trl {

struct ClassInfo;

// A value of the effective configuration.
struct Setting {
  enum class State { Unset, Known, Unknown };
  State state = State::Unset;
  Scalar value;
  Span span;           // where it was set (YAML key, Python keyword, CLI flag); invalid for defaults
  std::string origin;  // "trainer YAML", "command line", "Python", "accelerate YAML", "environment", "default"
  std::vector<RelatedLocation> chain;  // the way it flowed, for notes

  bool known() const { return state == State::Known; }
  bool known_true() const { return known() && value.truthy(); }
  std::optional<std::int64_t> as_int() const;

  static Setting unknown(Span span, std::string origin);
  static Setting known_value(Scalar v, Span span, std::string origin);
};

struct TrainingRun {
  std::string name;                     // "launch.sh:3" or "train.py"
  std::optional<LaunchCommand> launch;  // none for a script no launch names
  FileId launch_file = kNoFile;
  FileId script = kNoFile;
  std::string script_display;  // as named on the launch line
  std::string trainer;         // sft, grpo, dpo, ...; empty when unknown
  const ClassInfo* config_class = nullptr;
  FileId trainer_yaml = kNoFile;
  FileId accelerate_yaml = kNoFile;
  bool args_from_parser = false;  // trainer args come from argv and --config
  bool args_fully_known = true;   // false: unset fields may still be set somewhere we cannot see
  // The dataclasses the argument parser fills from argv and --config (args_from_parser runs);
  // complete = false when one of them is the script's own class, unknown to trl-lint.
  std::vector<const ClassInfo*> parser_classes;
  bool parser_classes_complete = false;
  bool parser_keeps_unknown = false;  // unknown keys are handed back to the script, not rejected

  std::map<std::string, Setting, std::less<>> args;  // explicitly set trainer arguments
  Setting cp_size;
  Setting sp_size;

  // The effective value of a trainer argument: explicit, else the library default, else
  // Unknown (when something we cannot see may set it) or Unset.
  Setting arg(std::string_view field) const;
  // True for SFTTrainer and trainers derived from it (packing is an SFT feature).
  bool is_sft_family() const;
  Span launch_span() const { return launch ? launch->span : Span{}; }
};

}  // namespace trl
