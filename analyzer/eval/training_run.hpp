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

// A file a launch names (script, module, trainer YAML, accelerate YAML), and what became of it.
struct FileReference {
  enum class Kind { Script, Module, TrainerConfig, AccelerateConfig };
  Kind kind = Kind::Script;
  std::string text;  // as written on the launch line (after expansion)
  Span span;
  FileId file = kNoFile;   // the project file it resolved to
  bool exists = false;     // found on disk (a project file or any other file)
  bool checkable = false;  // a fully known relative path nothing creates at run time: TRL004 may judge it
  std::string stand_in;    // "README.md:12" when a docs block of the same section stands in for it
};
const char* to_string(FileReference::Kind k);

// What a project config's `runs:` entry says about a run no file launches.
struct ExplicitRun {
  std::string name;
  std::string script;             // path relative to the project root, or `trl sft` etc.
  std::string config;             // trainer YAML (--config)
  std::string accelerate_config;  // accelerate YAML, or a TRL profile name
  std::vector<std::string> args;  // extra script arguments
  std::vector<std::pair<std::string, std::string>> env;
  Span span;              // where the entry is written (the project config), if known
  FileId file = kNoFile;  // the project config file, if it is a project file
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
  std::size_t trainer_yaml_doc = 0;  // document index (Markdown files hold one per YAML block)
  FileId accelerate_yaml = kNoFile;
  std::size_t accelerate_yaml_doc = 0;
  std::string accelerate_profile;  // a TRL bundled profile by name (`--accelerate_config zero3`)
  std::vector<FileReference> references;
  bool explicit_run = false;      // from the project config's `runs:`
  bool args_from_parser = false;  // trainer args come from argv and --config
  bool args_fully_known = true;   // false: unset fields may still be set somewhere we cannot see

  std::map<std::string, Setting, std::less<>> args;  // explicitly set trainer arguments
  Setting cp_size;
  Setting sp_size;
  // accelerate: num_processes is the total over all machines (accelerate utils/launch.py:
  // nproc_per_node = num_processes // num_machines); torchrun: nproc_per_node x nnodes.
  Setting num_processes;
  Setting num_machines;
  Setting world_size;

  // The effective value of a trainer argument: explicit, else the library default, else
  // Unknown (when something we cannot see may set it) or Unset.
  Setting arg(std::string_view field) const;
  // True for SFTTrainer and trainers derived from it (packing is an SFT feature).
  bool is_sft_family() const;
  Span launch_span() const { return launch ? launch->span : Span{}; }
};

}  // namespace trl
