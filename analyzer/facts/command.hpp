// A command line found in a shell script (or, later, a Makefile recipe or a docs block),
// with its words expanded as far as the script's own variables allow.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/source/source_file.hpp"

namespace trl {

// One shell word after expansion. `known` is false when it depends on something the
// script does not define (an unset variable, a command substitution).
struct Word {
  std::string text;  // an unknown word: its literal parts, the unknown parts left out
  bool known = true;
  Span span;
  // An unknown word: how many leading bytes of `text` are written literally, before the first
  // unknown part (`--nnodes=$N` -> 9, `--nnodes=`). 0 when not recorded.
  std::uint32_t known_prefix = 0;
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
  // `cwd` is relative to the script's own folder for certain: the script went there
  // (`cd "$(dirname "$0")"`), so its relative paths do not depend on where it was started.
  bool cwd_script_dir = false;
};

// A file a script creates before it could be read (so a reference to it is not dangling).
struct CreatedPath {
  std::string path;
  std::string cwd;  // like CommandFact::cwd
  bool cwd_known = true;
  Span span;
  bool cwd_script_dir = false;  // like CommandFact::cwd_script_dir
};

}  // namespace trl
