// A command line understood as a training launch: which launcher, its options, the script
// or module it starts, and the script's own arguments.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyzer/facts/command.hpp"

namespace trl {

class Knowledge;

enum class Launcher { Accelerate, Torchrun, Deepspeed, Python, Trl };
const char* to_string(Launcher l);

struct LaunchOption {
  std::string name;  // without dashes, '-' folded to '_' (accelerate accepts both spellings)
  std::optional<Word> value;
  Span span;  // the option token (and its value)
};

struct LaunchCommand {
  Launcher launcher = Launcher::Python;
  Span span;           // whole command
  Span launcher_span;  // the launcher word
  std::vector<EnvAssignment> env;
  std::vector<LaunchOption> options;
  std::optional<Word> script;  // path, or module name when `module` is set
  bool module = false;
  // sft, dpo, grpo, ... for the trl CLI, and for a launch of TRL's script module (`-m trl.scripts.sft`)
  std::string trl_command;
  std::vector<Word> args;  // the script's arguments
  std::string cwd;
  bool cwd_known = true;
  bool cwd_script_dir = false;  // see CommandFact::cwd_script_dir

  const LaunchOption* option(std::string_view name) const;  // last occurrence
  const EnvAssignment* env_var(std::string_view name) const;
};

// Splits a command into launcher options, script and arguments; nullopt when it is not a
// training launch (python -c, accelerate config, trl env, ...).
std::optional<LaunchCommand> parse_launch(const CommandFact& command, const Knowledge& knowledge);

// Normalises an option token: `--num-processes=2` -> ("num_processes", "2").
std::string normalize_option_name(std::string_view token);

}  // namespace trl
