// A command line found in a shell script (or, later, a Makefile recipe or a docs block),
// with its words expanded as far as the script's own variables allow.
#pragma once

#include <string>
#include <vector>

#include "analyzer/source/source_file.hpp"

namespace trl {

// One shell word after expansion. `known` is false when it depends on something the
// script does not define (an unset variable, a command substitution).
struct Word {
  std::string text;
  bool known = true;
  Span span;
};

struct EnvAssignment {
  std::string name;
  Word value;
};

struct CommandFact {
  std::vector<Word> argv;          // wrappers such as exec/env/nohup already removed
  std::vector<EnvAssignment> env;  // exported earlier in the script, then prefix assignments
  std::string cwd;                 // directory from an earlier `cd`, relative to the script's folder
  bool cwd_known = true;
  Span span;  // the whole command
};

// A file a script creates before it could be read (so a reference to it is not dangling).
struct CreatedPath {
  std::string path;
  std::string cwd;  // like CommandFact::cwd
  bool cwd_known = true;
  Span span;
};

}  // namespace trl
