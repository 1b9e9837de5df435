// Finds training launch commands in a shell script, following the script's own variables,
// exports and `cd`s in order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/facts/command.hpp"
#include "analyzer/facts/file_facts.hpp"

namespace trl::shell {

struct ShellFacts {
  std::vector<CommandFact> commands;
  std::vector<CreatedPath> created;  // files the script writes (`> f`, `cp a f`, `tee f`, `wget -O f`)
  std::vector<FileProblem> problems;
  std::vector<Comment> comments;
};

// A variable defined before the script runs (a Makefile variable, a workflow `env:`, a Slurm
// allocation), visible to the script as if assigned at its top.
struct PredefinedVar {
  std::string name;
  std::string value;
  bool known = true;
  bool exported = false;
  // The script cannot change it: make pastes a Makefile variable into the recipe before the
  // shell runs it, and a Slurm allocation's variables are the scheduler's. Such a variable keeps
  // its value across `source` and `eval`, which make the script's own variables unknown.
  bool fixed = false;
};

struct ExtractOptions {
  std::vector<PredefinedVar> vars;
  std::string cwd;  // working directory the text starts in, relative to the file's folder
  bool cwd_known = true;
  // Where `text` starts in the file, when it is a piece of a larger one (a workflow step, a
  // Makefile recipe line): its byte offset and line, at the start of a line. Spans are given in
  // the file's coordinates.
  std::uint32_t base_offset = 0;
  std::uint32_t base_line = 0;
  // When not empty: a text of the same length as `text` whose line breaks give spans their lines
  // and columns. A caller that joined lines in place (a folded YAML scalar: each folded line
  // break replaced with a space) passes the unjoined text here, so spans stay in the file's lines.
  std::string_view line_layout;
  // When not empty (text.size() + 1 entries): `text` is an expansion of `line_layout` (a Makefile
  // recipe after make expanded its variables), and offsets[k] is the offset in `line_layout` that
  // byte k of `text` came from; spans point there.
  std::vector<std::uint32_t> offsets;
};

// Reads the script's #SBATCH header too (see sbatch_variables).
ShellFacts extract(std::string_view text, FileId file, const ExtractOptions& options = {});

// A piece of a text read as its own script: bytes [begin, end), starting a line (`line`, 0-based).
struct SessionPiece {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  std::uint32_t line = 0;
  bool isolated = false;  // runs in a shell of its own: what it assigns or `cd`s to does not carry over
};

// Pieces of one text run in order in one terminal session (the shell blocks of a Markdown
// file): each is parsed on its own, so a syntax error in one (`export TOKEN=<your-token>`, an
// unclosed quote) cannot swallow the commands of the next; the variables, functions and folder
// a piece leaves carry over to the next, except that after a piece that does not parse what it
// may have assigned and the folder are unknown. No #SBATCH header is read.
ShellFacts extract_session(std::string_view text, const std::vector<SessionPiece>& pieces, FileId file,
                           const ExtractOptions& options = {});

// The Slurm allocation an #SBATCH header asks for, as the SLURM_* variables the job then sees
// (SLURM_NNODES, SLURM_JOB_NUM_NODES, SLURM_GPUS_PER_NODE, SLURM_NTASKS_PER_NODE, SLURM_GPUS_ON_NODE).
std::vector<PredefinedVar> sbatch_variables(std::string_view text);

// True for a program name that starts (or wraps) a training run: accelerate, accelerate-launch,
// torchrun, deepspeed, python, trl.
bool is_launcher_program(std::string_view argv0);

// `/usr/bin/python3` -> `python3`.
std::string_view program_basename(std::string_view path);
// python, python3, python3.11
bool is_python_interpreter(std::string_view name);

}  // namespace trl::shell
