// The accelerate side of a launch (paradigm, FSDP version, precision, DeepSpeed config file,
// process counts) and the world size of a run, resolved the way the launchers resolve them.
#pragma once

#include <string>

#include "analyzer/eval/training_run.hpp"
#include "analyzer/facts/yaml_node.hpp"

namespace trl {

// How the accelerate config of a launch was found.
struct AccelerateConfigSource {
  enum class Kind {
    None,        // no --config_file: accelerate may read ~/.cache/huggingface/accelerate/default_config.yaml
    File,        // a YAML in the project (root may still be null when it is not a mapping)
    Profile,     // a TRL bundled profile named with `trl <cmd> --accelerate_config NAME`
    Unresolved,  // named, but computed or missing from the project
  };
  Kind kind = Kind::None;
  const YamlNode* root = nullptr;
  std::string profile;  // Kind::Profile: fsdp1, fsdp2, multi_gpu, single_gpu, zero1, zero2, zero3
  Span span;            // the option naming the config
};

// True for the names `trl --accelerate_config` resolves inside the installed package.
bool is_trl_accelerate_profile(std::string_view name);

// accelerate commands/launch.py `_validate_launch_command`: a launch flag wins, then the YAML
// (nested sections copied onto the launch arguments; fsdp_config keys get the fsdp_ prefix), then
// the launcher defaults. Only for `accelerate launch` and `trl <command>`.
AccelerateSettings read_accelerate_settings(const LaunchCommand& launch, const AccelerateConfigSource& config);

// The number of processes the launch starts (accelerate: num_processes, the total over all
// machines; torchrun: nproc_per_node x nnodes; deepspeed: num_gpus x num_nodes; python: 1).
Setting launch_world_size(const LaunchCommand& launch, const AccelerateSettings& accelerate);

}  // namespace trl
