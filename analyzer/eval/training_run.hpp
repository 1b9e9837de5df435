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

// The accelerate side of a run, as `accelerate launch` resolves it (commands/launch.py
// _validate_launch_command): launch flag > accelerate YAML > environment > default.
struct AccelerateSettings {
  bool launched = false;     // started by `accelerate launch` or `trl <command>`
  Setting distributed_type;  // NO, MULTI_GPU, FSDP, DEEPSPEED, ... (from a paradigm flag or the YAML)
  Setting fsdp_version;      // 1 or 2 (a missing key is FSDP1)
  Setting fsdp_activation_checkpointing;
  Setting mixed_precision;  // no, fp16, bf16, fp8
  Setting deepspeed_config_file;
  // accelerate-YAML keys that must not sit next to deepspeed_config_file (DeepSpeedPlugin
  // _deepspeed_config_checks): each key and where it is written.
  std::vector<std::pair<std::string, Span>> deepspeed_file_conflicts;
  Setting num_processes;  // total processes over all machines (accelerate's meaning)
  Setting num_machines;
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

  std::map<std::string, Setting, std::less<>> args;  // explicitly set trainer arguments
  Setting cp_size;
  Setting sp_size;
  Setting dp_replicate_size;
  Setting dp_shard_size;
  Setting tp_size;
  Setting sp_backend;               // "deepspeed" unless set otherwise
  bool parallelism_config = false;  // a ParallelismConfig reaches the Accelerator
  Setting world_size;               // processes of the launch (accelerate num_processes, torchrun nproc x nnodes)
  AccelerateSettings accelerate;
  Setting attn_implementation;  // the model's attention implementation (transformers' default is sdpa)

  // The effective value of a trainer argument: explicit, else the library default, else
  // Unknown (when something we cannot see may set it) or Unset.
  Setting arg(std::string_view field) const;
  // True for SFTTrainer and trainers derived from it (packing is an SFT feature).
  bool is_sft_family() const;
  // The effective trainer precision: "fp16", "bf16" or "no"; Unknown when a flag is unknown.
  Setting trainer_precision() const;
  Span launch_span() const { return launch ? launch->span : Span{}; }
};

}  // namespace trl
