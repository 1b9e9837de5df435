// Finds launch commands in Makefile recipes. A hand-written line reader (there is no
// tree-sitter make grammar in our pins): variable assignments (`=`, `:=`, `::=`, `?=`, `+=`,
// `export`, `override`), conditionals, rules and their recipe lines (`@`/`-`/`+` prefixes,
// backslash continuations), target-specific variables (`train: ACC = x`). Each recipe line runs
// in a shell of its own (the whole recipe with `.ONESHELL:`): make expands its variables first,
// as make does (inside quotes too; an undefined variable or a function is unknown; a value past
// 64 KiB is unknown), and the shell extractor reads the result, with spans mapped back to the
// Makefile. The shell sees only the exported make variables.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/shell/shell_extractor.hpp"

namespace trl::make {

struct MakeVariable {
  std::string name;
  std::string value;  // fully expanded
  bool known = true;  // false: set in a conditional, by $(shell ...), or from an undefined variable
  bool exported = false;
};

// Variables as make would hold them after reading the whole file.
std::vector<MakeVariable> variables(std::string_view text);

shell::ShellFacts extract(std::string_view text, FileId file);

}  // namespace trl::make
