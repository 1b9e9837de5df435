// What the parts of the shell extractor share: the walker that reads a script's commands in
// order (Walker) and the state it keeps (variables, functions, scopes), and the models of the
// programs a script runs that the walker consults (launchers.cpp).
//   shell_extractor.cpp  the walk: commands, words, folders, `bash -c` and `eval`, extract()
//   shell_variables.cpp  variables, functions and scopes: assignments, `source`, calls
//   launchers.cpp        launchers and wrappers, `env`'s options, environment set-up, #SBATCH
//   file_writers.cpp     commands that write a file (`cp`, `tee`, `wget`, `curl`)
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/parse/tree_sitter.hpp"
#include "analyzer/shell/shell_extractor.hpp"
#include "analyzer/shell/shell_words.hpp"

namespace trl::shell::detail {

// Programs that run another command given as their arguments.
bool is_wrapper(std::string_view name);

// Options of the wrappers that take the next word as their value (`conda run -n trl ...`,
// `uv run --with trl ...`): the value is not the command. A value given in the same word
// (`--name=trl`, `-ntrl`) needs no entry. Each wrapper's own documentation (`--help`): conda run,
// mamba/micromamba run, uv (global and `uv run` options), poetry, srun, mpirun (Open MPI), sudo,
// timeout, nice, stdbuf, numactl, taskset, xargs.
bool wrapper_option_takes_value(std::string_view wrapper, std::string_view option);

// Wrapper options that run the command in another folder.
bool wrapper_option_changes_dir(std::string_view wrapper, std::string_view option);

// `eval "$(conda shell.bash hook)"`, `eval $(ssh-agent -s)`: a tool's own set-up of the shell,
// the environment's, which sets none of the script's variables. `command` is the text inside
// `$( )` (or backticks): the program and its first argument decide. direnv (which loads the
// project's .envrc) and general-purpose runners are not among them.
bool environment_hook(std::string_view command);

// The variables a virtual environment's activation script sets (CPython
// Lib/venv/scripts/common/activate, 3.11: VIRTUAL_ENV, VIRTUAL_ENV_PROMPT, PATH, PS1,
// PYTHONHOME and their _OLD_VIRTUAL_ copies; virtualenv's bin/activate sets the same).
inline constexpr std::string_view kVenvActivateVars[] = {
    "VIRTUAL_ENV",      "VIRTUAL_ENV_PROMPT",     "PATH", "PS1", "PYTHONHOME", "_OLD_VIRTUAL_PATH",
    "_OLD_VIRTUAL_PS1", "_OLD_VIRTUAL_PYTHONHOME"};

// A variable of the script: its value, with kUnknownMark where a part is unknown.
struct Var {
  std::string text;
  bool known = true;
  bool exported = false;
  bool fixed = false;  // see PredefinedVar::fixed
};

// What calling a function the script defined does: the variables its body assigns (or reads
// into, forgets, unsets), whether it runs something that may set any variable, and whether it
// changes folder.
struct FunctionEffect {
  std::vector<std::string> assigned;
  bool opaque = false;
  bool changes_dir = false;
  // The body, walked again at each call with the variables of that moment (CallBook). Only
  // while `src` is the text being walked (the tree is alive): null for a function carried out of
  // an `eval` string or from one Markdown block to the next.
  TSNode body{};
  const char* src = nullptr;
  int definition = -1;  // CallBook id of the definition
};

// Commands of function bodies: those read where a function is defined, by definition, and the
// definitions whose body was walked again at a call. A definition walked at a call keeps only the
// call's commands (with the variables of the call); one never called keeps its own.
struct CallBook {
  int next_definition = 0;
  std::vector<std::pair<int, std::size_t>> defined;  // (definition, index in ShellFacts::commands)
  std::set<int> called;
  // Bounds for the whole text (nested calls multiply): bodies walked at calls, and commands read
  // in them. Past either, a call only makes what the function assigns unknown (call_function).
  int walks_left = 1000;
  int commands_left = 20000;
  std::multimap<std::uint32_t, std::size_t> by_begin;  // commands read at calls, by span begin
};

// A folder pushd left on its stack.
struct DirEntry {
  std::string cwd;
  bool known = true;
  bool script_dir = false;
  bool operator==(const DirEntry&) const = default;
};

// A subshell, a command of a pipeline or a function body, walked in place: what it changes is
// undone at its end (a subshell's changes are its own; a function's happen when it is called).
struct ShellScope {
  bool function = false;
  std::string name;  // the function's
  TSNode body{};     // the function's
  int definition = -1;
  std::map<std::string, std::optional<Var>> saved;  // each variable changed inside, as it was
  std::string cwd;
  bool cwd_known = true;
  std::vector<DirEntry> dir_stack;
  bool script_dir = false;
  bool opaque = false;
  bool ran_opaque = false;                                               // something inside may have set any variable
  bool changed_dir = false;                                              // a `cd` inside
  std::map<std::string, std::optional<FunctionEffect>> saved_functions;  // functions (re)defined inside
};

// Reads a script's commands in order, following its variables, functions and folder. Its
// members are defined by job: shell_extractor.cpp (the walk, commands, folders, nested scripts),
// shell_variables.cpp (variables, functions, scopes), launchers.cpp (`env`'s options) and
// file_writers.cpp (commands that write files).
class Walker {
 public:
  Walker(std::string_view src, FileId file, ShellFacts& facts, std::string_view layout = {})
      : src_(src), file_(file), facts_(facts) {
    std::string_view lines = layout.empty() ? src : layout;
    line_starts_.push_back(0);
    for (std::uint32_t i = 0; i < lines.size(); ++i)
      if (lines[i] == '\n') line_starts_.push_back(i + 1);
  }

  void run(TSNode root, int conditional = 0);

 private:
  static bool at_top(TSNode n);
  void top_level_exit(const std::vector<RawWord>& argv);
  void loop_variable(TSNode n, bool conditional);
  Point point(std::uint32_t offset) const;

 public:
  Span plain_span(std::uint32_t b, std::uint32_t e) const;
  void drop_called_definitions();
  void lose_track();

 private:
  Span span(std::uint32_t b, std::uint32_t e) const;
  static Word finish(const RawWord& raw, Span at);
  void redirect(TSNode n);
  void created(const RawWord& path, Span at);

  // file_writers.cpp
  void file_writers(std::string_view prog, const std::vector<RawWord>& argv, std::uint32_t base);
  static std::string remote_name(std::string_view url);
  static bool is_url(const RawWord& w);
  void wget_writes(const std::vector<RawWord>& argv, const std::function<Span(const RawWord&)>& at);
  void curl_writes(const std::vector<RawWord>& argv, const std::function<Span(const RawWord&)>& at);

  bool nested(const std::string& text, Span at, Span command_span, bool all_vars,
              const std::vector<std::pair<std::string, RawWord>>& prefix);

  // shell_variables.cpp
  void remember(const std::string& name);
  void put(const std::string& name, Var v);
  void erase_var(const std::string& name);
  void set_function(const std::string& name, std::optional<FunctionEffect> effect);
  void end_scope();
  void forget(const std::string& name);
  void forget_all();
  void become_opaque();
  void dir_changed();
  void default_assignments(std::string_view text, bool conditional);
  void arithmetic_assignments(std::string_view text);
  void arithmetic(TSNode n, bool conditional);
  void unset(TSNode n, bool conditional);
  void walk_call(const FunctionEffect& effect, bool conditional);
  void call_function(const FunctionEffect& effect);
  bool assigning_builtin(std::string_view prog, const std::vector<RawWord>& argv);
  std::string_view raw_word(const RawWord& w) const;
  void sourced(const RawWord& path, std::string_view raw);
  VarLookup lookup();
  void set_var(const std::string& name, const RawWord& value, bool conditional, bool exported);
  void assignment(TSNode n, bool conditional, bool exported);
  void declaration(TSNode n, bool conditional);

  void command(TSNode n, bool conditional);
  void command_text(std::uint32_t begin, std::uint32_t end, bool conditional);

  // What `env`'s options do to the command's environment and folder.
  struct EnvChanges {
    bool ignore = false;          // -i, --ignore-environment, `-`: no exported variable
    std::set<std::string> unset;  // -u NAME, --unset=NAME
    bool unset_unknown = false;   // -u with a name we cannot read: any exported variable may be gone
    bool chdir = false;           // -C DIR, --chdir=DIR
  };
  // launchers.cpp
  static std::size_t env_option(const std::vector<RawWord>& argv, std::size_t k,
                                std::vector<std::pair<std::string, RawWord>>& prefix, EnvChanges& changes);

  void change_dir(const std::vector<RawWord>& argv, bool conditional);

 public:  // set up by extract() and nested()
  std::string_view src_;
  FileId file_;
  ShellFacts& facts_;
  std::vector<std::uint32_t> line_starts_;
  std::map<std::string, Var> vars_;
  std::string cwd_;
  bool cwd_known_ = true;
  std::vector<DirEntry> dir_stack_;  // pushd's
  bool script_dir_ = false;          // see CommandFact::cwd_script_dir
  std::uint32_t base_offset_ = 0;    // see ExtractOptions::base_offset
  std::uint32_t base_line_ = 0;
  const std::vector<std::uint32_t>* offsets_ = nullptr;  // see ExtractOptions::offsets
  std::optional<Span> fixed_;                            // nested text: every word points at the string it came from
  std::optional<Span> command_span_;                     // nested text: the command that ran it
  int depth_ = 0;
  std::vector<ShellScope> scopes_;  // the subshells, pipeline commands and function bodies being read
  std::string_view command_text_;   // the command being read (raw_word)
  std::map<std::string, FunctionEffect> functions_;
  // Something the script ran may have set any variable: an unassigned one is unknown, not unset.
  bool opaque_ = false;
  bool top_level_ = false;  // the command being read is one of the script's top level (at_top)
  CallBook own_book_;
  CallBook* book_ = &own_book_;  // shared with nested walkers (bash -c, eval)
  int call_depth_ = 0;           // function bodies being walked at their calls
  bool exited_ = false;          // the script ran `exit` or `exec COMMAND` at its top level
};

}  // namespace trl::shell::detail
