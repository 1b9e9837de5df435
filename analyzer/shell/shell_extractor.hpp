// Finds training launch commands in a shell script, following the script's own variables,
// exports and `cd`s in order.
#pragma once

#include <string_view>
#include <vector>

#include "analyzer/facts/command.hpp"
#include "analyzer/facts/file_facts.hpp"

namespace trl::shell {

struct ShellFacts {
  std::vector<CommandFact> commands;
  std::vector<FileProblem> problems;
  std::vector<Comment> comments;
};

ShellFacts extract(std::string_view text, FileId file);

// True for a program name that starts (or wraps) a training run: accelerate, torchrun,
// deepspeed, python, trl.
bool is_launcher_program(std::string_view argv0);

}  // namespace trl::shell
