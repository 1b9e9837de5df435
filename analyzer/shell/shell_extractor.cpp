#include "analyzer/shell/shell_extractor.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "analyzer/parse/tree_sitter.hpp"
#include "analyzer/shell/shell_words.hpp"

namespace trl::shell {

namespace {

// Programs that run another command given as their arguments.
bool is_wrapper(std::string_view name) {
  return name == "exec" || name == "env" || name == "nohup" || name == "time" || name == "srun" || name == "nice" ||
         name == "stdbuf" || name == "sudo" || name == "mpirun" || name == "command" || name == "xargs" ||
         name == "timeout" || name == "numactl" || name == "taskset" || name == "uv" || name == "poetry" ||
         name == "pipenv" || name == "conda" || name == "mamba" || name == "micromamba";
}

// Options of the wrappers that take the next word as their value (`conda run -n trl ...`,
// `uv run --with trl ...`): the value is not the command. A value given in the same word
// (`--name=trl`, `-ntrl`) needs no entry. Each wrapper's own documentation (`--help`): conda run,
// mamba/micromamba run, uv (global and `uv run` options), poetry, srun, mpirun (Open MPI), sudo,
// timeout, nice, stdbuf, numactl, taskset, xargs.
bool wrapper_option_takes_value(std::string_view wrapper, std::string_view option) {
  auto in = [&](std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), option) != names.end();
  };
  if (wrapper == "conda" || wrapper == "mamba" || wrapper == "micromamba")
    return in({"-n", "--name", "-p", "--prefix", "--cwd", "-r", "--root-prefix", "--rc-file"});
  if (wrapper == "uv")
    return in({"--with",
               "--with-editable",
               "--with-requirements",
               "-p",
               "--python",
               "--project",
               "--directory",
               "--package",
               "--extra",
               "--no-extra",
               "--group",
               "--no-group",
               "--only-group",
               "--env-file",
               "--index",
               "--default-index",
               "-i",
               "--index-url",
               "--extra-index-url",
               "-f",
               "--find-links",
               "--index-strategy",
               "--keyring-provider",
               "--resolution",
               "--prerelease",
               "--fork-strategy",
               "--exclude-newer",
               "--exclude-newer-package",
               "--no-build-isolation-package",
               "-C",
               "--config-setting",
               "--config-settings-package",
               "--link-mode",
               "--refresh-package",
               "--reinstall-package",
               "-P",
               "--upgrade-package",
               "--no-binary-package",
               "--no-build-package",
               "--cache-dir",
               "--config-file",
               "--color",
               "--python-preference",
               "--allow-insecure-host",
               "--python-platform",
               "--torch-backend",
               "--no-sources-package"});
  if (wrapper == "poetry") return in({"-C", "--directory", "-P", "--project"});
  if (wrapper == "srun")
    return in({"-A",
               "--account",
               "-c",
               "--cpus-per-task",
               "-C",
               "--constraint",
               "-D",
               "--chdir",
               "-e",
               "--error",
               "-G",
               "--gpus",
               "--gres",
               "-i",
               "--input",
               "-J",
               "--job-name",
               "-L",
               "--licenses",
               "-m",
               "--distribution",
               "-n",
               "--ntasks",
               "-N",
               "--nodes",
               "-o",
               "--output",
               "-p",
               "--partition",
               "-q",
               "--qos",
               "-t",
               "--time",
               "-w",
               "--nodelist",
               "-x",
               "--exclude",
               "--mem",
               "--mpi",
               "--export",
               "--container-image",
               "--container-mounts",
               "--container-workdir",
               "--ntasks-per-node",
               "--gpus-per-node",
               "--cpu-bind",
               "--jobid",
               "--reservation"});
  if (wrapper == "mpirun")
    return in({"-n",
               "-np",
               "--np",
               "-c",
               "-H",
               "--host",
               "--hostfile",
               "-hostfile",
               "--machinefile",
               "-x",
               "--map-by",
               "--bind-to",
               "--rank-by",
               "-npernode",
               "--npernode",
               "-N",
               "--mca",
               "-mca",
               "-wdir",
               "--wdir",
               "-output-filename",
               "--output-filename"});
  if (wrapper == "sudo")
    return in({"-u", "--user",   "-g", "--group", "-D", "--chdir", "-C", "--close-from",      "-h", "--host",
               "-p", "--prompt", "-r", "--role",  "-t", "--type",  "-T", "--command-timeout", "-U", "--other-user"});
  if (wrapper == "timeout") return in({"-s", "--signal", "-k", "--kill-after"});
  if (wrapper == "exec") return option == "-a";
  if (wrapper == "nice") return in({"-n", "--adjustment"});
  if (wrapper == "stdbuf") return in({"-i", "--input", "-o", "--output", "-e", "--error"});
  if (wrapper == "numactl")
    return in(
        {"-N", "--cpunodebind", "-m", "--membind", "-C", "--physcpubind", "-p", "--preferred", "-i", "--interleave"});
  if (wrapper == "taskset") return in({"-c", "--cpu-list"});
  if (wrapper == "xargs")
    return in({"-n", "--max-args", "-I", "-L", "--max-lines", "-P", "--max-procs", "-s", "--max-chars", "-d",
               "--delimiter", "-a", "--arg-file", "-E"});
  return false;
}

// Wrapper options that run the command in another folder.
bool wrapper_option_changes_dir(std::string_view wrapper, std::string_view option) {
  if (wrapper == "conda" || wrapper == "mamba" || wrapper == "micromamba") return option == "--cwd";
  if (wrapper == "uv") return option == "--directory";
  if (wrapper == "poetry") return option == "-C" || option == "--directory";
  if (wrapper == "srun" || wrapper == "sudo") return option == "-D" || option == "--chdir";
  if (wrapper == "mpirun") return option == "-wdir" || option == "--wdir";
  return false;
}

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

bool same_words(const std::vector<Word>& a, const std::vector<Word>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Word& x, const Word& y) { return x.text == y.text && x.known == y.known; });
}

// The same command read twice with the same values (a function called twice): one launch.
bool same_command(const CommandFact& a, const CommandFact& b) {
  if (a.span.begin != b.span.begin || a.span.end != b.span.end || a.cwd != b.cwd || a.cwd_known != b.cwd_known ||
      a.cwd_script_dir != b.cwd_script_dir || !same_words(a.argv, b.argv) || a.env.size() != b.env.size())
    return false;
  for (std::size_t i = 0; i < a.env.size(); ++i)
    if (a.env[i].name != b.env[i].name || a.env[i].value.text != b.env[i].value.text ||
        a.env[i].value.known != b.env[i].value.known)
      return false;
  return true;
}

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

// `eval "$(conda shell.bash hook)"`, `eval $(ssh-agent -s)`: a tool's own set-up of the shell,
// the environment's, which sets none of the script's variables. `command` is the text inside
// `$( )` (or backticks): the program and its first argument decide. direnv (which loads the
// project's .envrc) and general-purpose runners are not among them.
bool environment_hook(std::string_view command) {
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  std::size_t i = 0;
  while (i < command.size() && blank(command[i])) ++i;
  std::size_t j = i;
  while (j < command.size() && !blank(command[j])) ++j;
  const std::string_view program = program_basename(command.substr(i, j - i));
  while (j < command.size() && blank(command[j])) ++j;
  std::size_t k = j;
  while (k < command.size() && !blank(command[k])) ++k;
  const std::string_view first = command.substr(j, k - j);
  if (program == "conda" || program == "mamba" || program == "micromamba") return first.starts_with("shell");
  if (program == "pyenv" || program == "rbenv" || program == "nodenv" || program == "goenv" || program == "jenv")
    return first == "init" || first == "virtualenv-init";
  if (program == "brew") return first == "shellenv";
  if (program == "opam") return first == "env" || first == "config";
  if (program == "luarocks") return first == "path";
  return program == "ssh-agent" || program == "keychain" || program == "modulecmd";
}

// The variables a virtual environment's activation script sets (CPython
// Lib/venv/scripts/common/activate, 3.11: VIRTUAL_ENV, VIRTUAL_ENV_PROMPT, PATH, PS1,
// PYTHONHOME and their _OLD_VIRTUAL_ copies; virtualenv's bin/activate sets the same).
constexpr std::string_view kVenvActivateVars[] = {
    "VIRTUAL_ENV",      "VIRTUAL_ENV_PROMPT",     "PATH", "PS1", "PYTHONHOME", "_OLD_VIRTUAL_PATH",
    "_OLD_VIRTUAL_PS1", "_OLD_VIRTUAL_PYTHONHOME"};

// A scope keeps, for each name changed inside it, what the name held before (none: absent),
// to put back at its end: the same for variables and for functions.
template <typename V>
void save_first(std::map<std::string, std::optional<V>>& saved, const std::map<std::string, V>& live,
                const std::string& name) {
  if (saved.count(name)) return;
  auto it = live.find(name);
  saved.emplace(name, it == live.end() ? std::nullopt : std::optional<V>(it->second));
}
template <typename V>
void restore(std::map<std::string, V>& live, std::map<std::string, std::optional<V>>& saved) {
  for (auto& [name, old] : saved) {
    if (old)
      live[name] = std::move(*old);
    else
      live.erase(name);
  }
}

class Walker {
 public:
  Walker(std::string_view src, FileId file, ShellFacts& facts, std::string_view layout = {})
      : src_(src), file_(file), facts_(facts) {
    std::string_view lines = layout.empty() ? src : layout;
    line_starts_.push_back(0);
    for (std::uint32_t i = 0; i < lines.size(); ++i)
      if (lines[i] == '\n') line_starts_.push_back(i + 1);
  }

  void run(TSNode root, int conditional = 0) {
    // Iterative walk with an explicit stack: scripts can nest deeply. A scope's end is an item
    // of its own, after its children.
    struct Item {
      TSNode node;
      int conditional;
      bool scope_end = false;
    };
    std::vector<Item> stack{{root, conditional}};
    while (!stack.empty()) {
      Item it = stack.back();
      stack.pop_back();
      if (it.scope_end) {
        end_scope();
        continue;
      }
      auto t = ts::type(it.node);
      if (t == "command") {
        top_level_ = it.conditional == 0 && scopes_.empty() && depth_ == 0 && at_top(it.node);
        command(it.node, it.conditional > 0);
        top_level_ = false;
        if (exited_) return;  // what follows never runs
        continue;
      }
      if (t == "declaration_command") {
        declaration(it.node, it.conditional > 0);
        continue;
      }
      if (t == "variable_assignment") {
        assignment(it.node, it.conditional > 0, false);
        continue;
      }
      if (t == "file_redirect") {
        redirect(it.node);
        continue;
      }
      if (t == "test_command") {
        arithmetic(it.node, it.conditional > 0);
        continue;
      }
      if (t == "unset_command") {
        unset(it.node, it.conditional > 0);
        continue;
      }
      // A function's body is read where it is defined, for the commands it holds; what it
      // assigns happens when it is called (call_function). A subshell, and each command of a
      // pipeline, runs in a child shell: what it assigns and the folder it changes to are gone
      // after it (`(cd x && accelerate launch ...)`, `... | read N`).
      if (t == "function_definition" || t == "subshell" || t == "pipeline") {
        ShellScope scope;
        scope.function = t == "function_definition";
        scope.cwd = cwd_;
        scope.cwd_known = cwd_known_;
        scope.dir_stack = dir_stack_;
        scope.script_dir = script_dir_;
        scope.opaque = opaque_;
        int cond = it.conditional;
        std::vector<TSNode> kids;
        if (scope.function) {
          TSNode name = ts::field(it.node, "name");
          TSNode body = ts::field(it.node, "body");
          if (ts_node_is_null(body)) continue;
          if (!ts_node_is_null(name)) scope.name = std::string(ts::text(name, src_));
          scope.body = body;
          scope.definition = book_->next_definition++;
          kids.push_back(body);
          ++cond;
        } else {
          kids = ts::named_children(it.node);
        }
        scopes_.push_back(std::move(scope));
        stack.push_back({TSNode{}, 0, true});
        for (auto k = kids.rbegin(); k != kids.rend(); ++k) stack.push_back({*k, cond});
        continue;
      }
      if (t == "heredoc_body" || t == "comment") continue;
      if (t == "for_statement") loop_variable(it.node, it.conditional > 0);
      const bool cond = t == "if_statement" || t == "while_statement" || t == "for_statement" ||
                        t == "c_style_for_statement" || t == "case_statement" || t == "elif_clause" ||
                        t == "else_clause" || t == "case_item";
      auto kids = ts::named_children(it.node);
      for (auto k = kids.rbegin(); k != kids.rend(); ++k) stack.push_back({*k, it.conditional + (cond ? 1 : 0)});
    }
  }

 private:
  // A command of the script's own top level: a child of the program, or the body of a
  // redirected statement that is (`exit 1 2>/dev/null`); not part of a list, pipeline or body.
  static bool at_top(TSNode n) {
    TSNode parent = ts_node_parent(n);
    if (!ts_node_is_null(parent) && ts::type(parent) == "redirected_statement") parent = ts_node_parent(parent);
    return !ts_node_is_null(parent) && ts::type(parent) == "program";
  }

  // `exit`, or `exec` with a command, run unconditionally at the top level: the script ends
  // there. `exec` with redirections only (`exec > log 2>&1`) changes this shell's files and goes
  // on; `exec $CMD` with an unknown CMD may be empty and go on too.
  void top_level_exit(const std::vector<RawWord>& argv) {
    if (!top_level_ || argv.empty() || !argv[0].known) return;
    const std::string_view prog = argv[0].text;
    if (prog == "exit") {
      exited_ = true;
      return;
    }
    if (prog != "exec") return;
    std::size_t k = 1;
    // exec [-cl] [-a NAME] COMMAND
    while (k < argv.size() && argv[k].known && argv[k].text.size() > 1 && argv[k].text[0] == '-') {
      const std::string& o = argv[k].text;
      if (o == "--") {
        ++k;
        break;
      }
      if (o.find_first_not_of("cla", 1) != std::string::npos) return;  // not exec's: unsure
      k += o.find('a') != std::string::npos ? 2 : 1;
    }
    for (; k < argv.size(); ++k) {
      const std::string_view raw = raw_word(argv[k]);
      if ((argv[k].known && !argv[k].text.empty()) || raw.find_first_of("\"'") != std::string_view::npos) {
        exited_ = true;
        return;
      }
    }
  }

  // `for VAR in WORDS; do ... done` assigns VAR each word in turn before the body. Over exactly
  // one known word, VAR is that word in the body and after the loop; over a known empty list the
  // loop does not run and VAR keeps its value; over anything else (several words, an expansion
  // that may split or be empty, a glob, a brace expansion, `for VAR; do` over "$@") VAR is
  // unknown, in the body and after it. `select VAR in ...` sets VAR to the user's choice: unknown.
  void loop_variable(TSNode n, bool conditional) {
    TSNode variable = ts::field(n, "variable");
    if (ts_node_is_null(variable)) return;
    const std::string name(ts::text(variable, src_));
    auto it = vars_.find(name);
    if (it != vars_.end() && it->second.fixed) return;
    const TSNode keyword = ts_node_child(n, 0);
    const bool select = !ts_node_is_null(keyword) && ts::type(keyword) == "select";
    std::uint32_t first = 0, last = 0;
    bool values = false;
    // The words: the named children between the variable and the body (`in` is anonymous).
    TSNode body = ts::field(n, "body");
    for (TSNode v : ts::named_children(n)) {
      if (ts_node_start_byte(v) <= ts_node_start_byte(variable) || ts::type(v) == "comment") continue;
      if (!ts_node_is_null(body) && ts_node_start_byte(v) >= ts_node_start_byte(body)) break;
      if (!values) first = ts_node_start_byte(v);
      last = ts_node_end_byte(v);
      values = true;
    }
    if (select || !values) {
      forget(name);
      return;
    }
    const std::string_view list = src_.substr(first, last - first);
    std::vector<RawWord> fields;
    bool known = true;
    for (const RawWord& w : split_words(list, lookup())) {
      const std::string_view raw = list.substr(w.begin, w.end - w.begin);
      // Pathname and brace expansion are not followed.
      if (raw.find_first_of("*?[{") != std::string_view::npos) known = false;
      if (w.unquoted_expansion) {
        for (auto& f : field_split(w)) fields.push_back(std::move(f));
      } else {
        fields.push_back(w);
      }
    }
    for (const RawWord& f : fields) known = known && f.known && f.text.find(kUnknownMark) == std::string::npos;
    if (known && fields.empty()) return;
    if (known && fields.size() == 1) {
      set_var(name, fields[0], conditional, false);
      return;
    }
    forget(name);
  }

  Point point(std::uint32_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    std::uint32_t line = static_cast<std::uint32_t>(it - line_starts_.begin()) - 1;
    return Point{line + base_line_, offset - line_starts_[line]};
  }

 public:
  // Offsets to a span in the text's own coordinates (no base offset or line).
  Span plain_span(std::uint32_t b, std::uint32_t e) const { return Span{file_, b, e, point(b), point(e)}; }

  // Drops the commands read at the definition of functions whose body was walked at a call.
  void drop_called_definitions() {
    std::vector<std::size_t> drop;
    for (const auto& [definition, index] : book_->defined)
      if (book_->called.count(definition) && index < facts_.commands.size()) drop.push_back(index);
    std::sort(drop.begin(), drop.end());
    drop.erase(std::unique(drop.begin(), drop.end()), drop.end());
    for (auto it = drop.rbegin(); it != drop.rend(); ++it)
      facts_.commands.erase(facts_.commands.begin() + static_cast<std::ptrdiff_t>(*it));
    book_->defined.clear();
  }

  // A piece of a session that did not parse: what it may have assigned is unknown to the pieces
  // after it, and so is the folder when the piece names a command that changes it.
  void lose_track() {
    forget_all();
    std::string word;
    for (std::size_t i = 0; i <= src_.size(); ++i) {
      const char c = i < src_.size() ? src_[i] : ' ';
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') {
        word.push_back(c);
        continue;
      }
      if (word == "cd" || word == "pushd" || word == "popd") cwd_known_ = false;
      word.clear();
    }
  }

 private:
  Span span(std::uint32_t b, std::uint32_t e) const {
    if (fixed_) return *fixed_;
    if (offsets_ && !offsets_->empty()) {
      b = (*offsets_)[std::min<std::size_t>(b, offsets_->size() - 1)];
      e = std::max(b, (*offsets_)[std::min<std::size_t>(e, offsets_->size() - 1)]);
    }
    return Span{file_, b + base_offset_, e + base_offset_, point(b), point(e)};
  }

  static Word finish(const RawWord& raw, Span at) {
    Word w{raw.text, raw.known, at};
    if (const auto mark = w.text.find(kUnknownMark); mark != std::string::npos) {
      w.known = false;
      w.known_prefix = static_cast<std::uint32_t>(mark);
      std::erase(w.text, kUnknownMark);
    }
    return w;
  }

  void redirect(TSNode n) {
    std::string_view all = ts::text(n, src_);
    std::size_t k = 0;
    while (k < all.size() && std::isdigit(static_cast<unsigned char>(all[k]))) ++k;
    if (k < all.size() && all[k] == '&') ++k;
    if (k >= all.size() || all[k] != '>') return;
    TSNode dest = ts::field(n, "destination");
    if (ts_node_is_null(dest)) return;
    created(expand_value(ts::text(dest, src_), lookup()), span(ts_node_start_byte(dest), ts_node_end_byte(dest)));
  }

  void created(const RawWord& path, Span at) {
    if (!path.known || path.text.empty() || path.text.find(kUnknownMark) != std::string::npos) return;
    facts_.created.push_back({path.text, cwd_, cwd_known_, at, script_dir_});
  }

  // Commands that write a file named in their arguments.
  void file_writers(std::string_view prog, const std::vector<RawWord>& argv, std::uint32_t base) {
    auto at = [&](const RawWord& w) { return span(base + w.begin, base + w.end); };
    if ((prog == "cp" || prog == "mv" || prog == "ln" || prog == "install") && argv.size() >= 3) {
      created(argv.back(), at(argv.back()));
    } else if (prog == "tee" || prog == "touch") {
      for (std::size_t k = 1; k < argv.size(); ++k)
        if (!argv[k].text.empty() && argv[k].text[0] != '-') created(argv[k], at(argv[k]));
    } else if (prog == "wget") {
      wget_writes(argv, at);
    } else if (prog == "curl") {
      curl_writes(argv, at);
    }
  }

  // The file name wget and `curl -O` give a download: the last part of the URL's path. Empty when
  // that is not plain (a folder URL, a query or fragment, %-escapes: wget then names the file
  // otherwise, `index.html` or with the query kept).
  static std::string remote_name(std::string_view url) {
    const std::size_t scheme = url.find("://");
    if (scheme == std::string_view::npos) return {};
    const std::string_view rest = url.substr(scheme + 3);
    const std::size_t slash = rest.find('/');
    if (slash == std::string_view::npos) return {};
    const std::string_view path = rest.substr(slash);
    if (path.find_first_of("?#%") != std::string_view::npos) return {};
    const std::string_view name = path.substr(path.rfind('/') + 1);
    if (name.empty() || name == "." || name == "..") return {};
    return std::string(name);
  }

  static bool is_url(const RawWord& w) {
    return w.known &&
           (w.text.rfind("http://", 0) == 0 || w.text.rfind("https://", 0) == 0 || w.text.rfind("ftp://", 0) == 0);
  }

  // `wget -O FILE URL` writes FILE (`-O -`: standard output); `wget URL` writes the URL's last path
  // part into the current folder (GNU wget's default naming). Options that name the file some
  // other way (a directory prefix, recursion, the server's name) leave the name unknown.
  void wget_writes(const std::vector<RawWord>& argv, const std::function<Span(const RawWord&)>& at) {
    bool named = false, other_naming = false;
    std::vector<const RawWord*> urls;
    for (std::size_t k = 1; k < argv.size(); ++k) {
      const RawWord& w = argv[k];
      const std::string& t = w.text;
      if (!w.known) {
        other_naming = true;
        continue;
      }
      auto output = [&](const RawWord& file, std::string_view text) {
        named = true;
        if (text != "-") {
          RawWord f = file;
          f.text = std::string(text);
          created(f, at(file));
        }
      };
      if (t == "-O" || t == "--output-document") {
        if (k + 1 < argv.size()) output(argv[k + 1], argv[k + 1].text);
        ++k;
      } else if (t.rfind("--output-document=", 0) == 0) {
        output(w, std::string_view(t).substr(18));
      } else if (t.size() > 2 && t[0] == '-' && t[1] != '-' && t.back() == 'O') {
        // a cluster of short options ending in O (`-qO FILE`)
        if (k + 1 < argv.size()) output(argv[k + 1], argv[k + 1].text);
        ++k;
      } else if (t.rfind("-O", 0) == 0 && t.size() > 2) {
        output(w, std::string_view(t).substr(2));
      } else if (t == "-P" || t == "--directory-prefix" || t.rfind("--directory-prefix=", 0) == 0 ||
                 t.rfind("-P", 0) == 0 || t == "-r" || t == "--recursive" || t == "-m" || t == "--mirror" ||
                 t == "-x" || t == "--force-directories" || t == "-i" || t.rfind("--input-file", 0) == 0 ||
                 t == "--content-disposition" || t == "--trust-server-names" || t == "-p" || t == "--page-requisites" ||
                 t == "-B" || t.rfind("--base", 0) == 0) {
        other_naming = true;
      } else if (is_url(w)) {
        urls.push_back(&w);
      }
    }
    if (named || other_naming) return;
    for (const RawWord* u : urls)
      if (std::string name = remote_name(u->text); !name.empty()) {
        RawWord f = *u;
        f.text = std::move(name);
        created(f, at(*u));
      }
  }

  // `curl -o FILE` / `--output FILE` writes FILE; `curl -O URL` / `--remote-name` writes the URL's
  // last path part (`--remote-name-all`: for every URL). `-J` (the server's name) and
  // `--output-dir` leave the name of `-O` downloads unknown.
  void curl_writes(const std::vector<RawWord>& argv, const std::function<Span(const RawWord&)>& at) {
    std::size_t remote = 0, outputs = 0;
    bool remote_all = false, other_naming = false;
    std::vector<const RawWord*> urls;
    for (std::size_t k = 1; k < argv.size(); ++k) {
      const RawWord& w = argv[k];
      const std::string& t = w.text;
      if (!w.known) continue;
      if (t == "-o" || t == "--output") {
        ++outputs;
        if (k + 1 < argv.size() && argv[k + 1].text != "-") created(argv[k + 1], at(argv[k + 1]));
        ++k;
      } else if (t == "--remote-name") {
        ++remote;
      } else if (t == "--remote-name-all") {
        remote_all = true;
      } else if (t == "--remote-header-name" || t.rfind("--output-dir", 0) == 0) {
        other_naming = true;
      } else if (t.size() > 1 && t[0] == '-' && t[1] != '-') {
        // short options, alone or clustered (`-sSLO`, `-Lo FILE`, `-oFILE`)
        for (std::size_t i = 1; i < t.size(); ++i) {
          if (t[i] == 'O') ++remote;
          if (t[i] == 'J') other_naming = true;
          if (t[i] == 'o') {
            ++outputs;
            if (i + 1 < t.size()) {
              RawWord f = w;
              f.text = t.substr(i + 1);
              if (f.text != "-") created(f, at(w));
            } else if (k + 1 < argv.size()) {
              if (argv[k + 1].text != "-") created(argv[k + 1], at(argv[k + 1]));
              ++k;
            }
            break;
          }
        }
      } else if (is_url(w)) {
        urls.push_back(&w);
      }
    }
    // Each -O names one URL, in order; mixed with -o, which URL each takes is not followed here.
    if (other_naming || (outputs > 0 && !remote_all)) return;
    for (std::size_t i = 0; i < urls.size(); ++i) {
      if (!remote_all && i >= remote) break;
      if (std::string name = remote_name(urls[i]->text); !name.empty()) {
        RawWord f = *urls[i];
        f.text = std::move(name);
        created(f, at(*urls[i]));
      }
    }
  }

  // `bash -c "STRING"` and `eval STRING`: the string is parsed again as a script of its own.
  // `eval` (all_vars) runs the string in this shell: afterwards this walker's variables and
  // folder are the string's, when it was walked whole. Returns false when it was not.
  bool nested(const std::string& text, Span at, Span command_span, bool all_vars,
              const std::vector<std::pair<std::string, RawWord>>& prefix) {
    if (depth_ >= 4 || text.empty()) return false;
    ts::Tree tree = ts::parse(tree_sitter_bash(), text);
    if (!tree) return false;
    Walker inner(text, file_, facts_);
    for (const auto& [name, v] : vars_)
      if (all_vars || v.exported) inner.vars_[name] = v;
    for (const auto& [name, v] : prefix) inner.vars_[name] = Var{v.text, v.known, true};
    inner.functions_ = functions_;
    inner.opaque_ = opaque_;
    inner.cwd_ = cwd_;
    inner.cwd_known_ = cwd_known_;
    inner.dir_stack_ = dir_stack_;
    inner.script_dir_ = script_dir_;
    inner.fixed_ = at;
    inner.command_span_ = command_span;
    inner.depth_ = depth_ + 1;
    inner.book_ = book_;
    inner.call_depth_ = call_depth_;
    inner.run(ts_tree_root_node(tree.get()));
    if (all_vars) {
      // What the string changed, changed here (through put/erase, so an enclosing scope can
      // undo it).
      for (const auto& [name, v] : inner.vars_) {
        auto it = vars_.find(name);
        if (it == vars_.end() || it->second.text != v.text || it->second.known != v.known ||
            it->second.exported != v.exported)
          put(name, v);
      }
      std::vector<std::string> gone;
      for (const auto& [name, v] : vars_)
        if (!inner.vars_.count(name)) gone.push_back(name);
      for (const auto& name : gone) erase_var(name);
      for (auto& [name, f] : inner.functions_) {
        if (f.src != src_.data()) f.src = nullptr;  // the string's tree is gone after this
        set_function(name, std::move(f));
      }
      if (inner.opaque_) become_opaque();
      if (inner.cwd_ != cwd_ || inner.cwd_known_ != cwd_known_ || inner.dir_stack_ != dir_stack_ ||
          inner.script_dir_ != script_dir_) {
        cwd_ = std::move(inner.cwd_);
        cwd_known_ = inner.cwd_known_;
        dir_stack_ = std::move(inner.dir_stack_);
        script_dir_ = inner.script_dir_;
        dir_changed();
      }
    }
    return true;
  }

  // Every change of a variable goes through put and erase_var: inside a scope, the value before
  // its first change is kept, to be put back at the scope's end.
  void remember(const std::string& name) {
    if (!scopes_.empty()) save_first(scopes_.back().saved, vars_, name);
  }
  void put(const std::string& name, Var v) {
    remember(name);
    vars_[name] = std::move(v);
  }
  void erase_var(const std::string& name) {
    remember(name);
    vars_.erase(name);
  }

  // Functions are defined and removed through set_function, so that a scope can undo it: a
  // definition inside a subshell, or inside a function's body, is gone after it.
  void set_function(const std::string& name, std::optional<FunctionEffect> effect) {
    if (!scopes_.empty()) save_first(scopes_.back().saved_functions, functions_, name);
    if (effect)
      functions_[name] = std::move(*effect);
    else
      functions_.erase(name);
  }

  void end_scope() {
    ShellScope scope = std::move(scopes_.back());
    scopes_.pop_back();
    restore(vars_, scope.saved);
    restore(functions_, scope.saved_functions);
    if (scope.function && !scope.name.empty()) {
      FunctionEffect effect;
      for (const auto& [name, old] : scope.saved) effect.assigned.push_back(name);  // keys stay
      effect.opaque = scope.ran_opaque;
      effect.changes_dir = scope.changed_dir;
      effect.body = scope.body;
      effect.src = src_.data();
      effect.definition = scope.definition;
      set_function(scope.name, std::move(effect));  // in the enclosing scope
    }
    cwd_ = std::move(scope.cwd);
    cwd_known_ = scope.cwd_known;
    dir_stack_ = std::move(scope.dir_stack);
    script_dir_ = scope.script_dir;
    opaque_ = scope.opaque;
  }

  // The variable is no longer known (read into, assigned by arithmetic, set by a function).
  void forget(const std::string& name) {
    if (name.empty()) return;
    auto it = vars_.find(name);
    if (it != vars_.end() && it->second.fixed) return;
    const bool exported = it != vars_.end() && it->second.exported;
    put(name, Var{std::string(1, kUnknownMark), false, exported});
  }

  // The script ran something that may set any variable (`source FILE`, `eval` of unknown text):
  // its own variables are unknown, and so is every variable it has not assigned.
  void forget_all() {
    std::vector<std::string> names;
    for (const auto& [name, v] : vars_)
      if (!v.fixed && v.known) names.push_back(name);
    for (const auto& name : names) forget(name);
    become_opaque();
  }

  // Something run may have set any variable; a function doing it does so when called.
  void become_opaque() {
    opaque_ = true;
    if (!scopes_.empty()) scopes_.back().ran_opaque = true;
  }
  void dir_changed() {
    if (!scopes_.empty()) scopes_.back().changed_dir = true;
  }

  // `${V:=x}` and `${V=x}` (outside single quotes) assign V when it is unset (or empty, with the
  // colon), as they expand.
  void default_assignments(std::string_view text, bool conditional) {
    bool single = false, dbl = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '\\' && !single) {
        ++i;
        continue;
      }
      if (c == '\'' && !dbl) single = !single;
      if (c == '"' && !single) dbl = !dbl;
      if (!single && c == '$' && text.substr(i + 1, 2) == "((") {
        // `$(( N = 8 ))` assigns as it expands.
        std::size_t k = i + 3;
        for (int depth = 2; k < text.size() && depth > 0; ++k) depth += text[k] == '(' ? 1 : text[k] == ')' ? -1 : 0;
        if (k >= i + 5) arithmetic_assignments(text.substr(i + 3, k - i - 5));
        i = k > 0 ? k - 1 : k;
        continue;
      }
      if (single || c != '$' || i + 1 >= text.size() || text[i + 1] != '{') continue;
      std::size_t j = i + 2;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      if (j == i + 2 || std::isdigit(static_cast<unsigned char>(text[i + 2]))) continue;
      const bool colon = j < text.size() && text[j] == ':';
      const std::size_t op = colon ? j + 1 : j;
      if (op >= text.size() || text[op] != '=') continue;
      // The default runs to the matching brace.
      std::size_t k = op + 1;
      for (int depth = 1; k < text.size(); ++k) {
        if (text[k] == '\\') {
          ++k;
        } else if (text[k] == '{') {
          ++depth;
        } else if (text[k] == '}' && --depth == 0) {
          break;
        }
      }
      if (k >= text.size()) return;
      const std::string name(text.substr(i + 2, j - i - 2));
      auto it = vars_.find(name);
      if (it != vars_.end() && it->second.fixed) continue;
      const bool unset = it == vars_.end() && !opaque_;
      const bool empty = it != vars_.end() && it->second.known && it->second.text.empty();
      if (unset || (colon && empty))
        set_var(name, expand_value(text.substr(op + 1, k - op - 1), lookup()), conditional, false);
      else if (it == vars_.end())
        forget(name);
      i = k;
    }
  }

  // The names an arithmetic expression assigns (`N = 8`, `N += 1`, `N++`, `--N`), forgotten;
  // names it only reads (`N * 2`, `N == 8`) keep their values.
  void arithmetic_assignments(std::string_view text) {
    auto blank = [](char c) { return c == ' ' || c == '\t'; };
    for (std::size_t i = 0; i < text.size();) {
      if (!(std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_') ||
          (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '$'))) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      std::size_t before = i;
      while (before > 0 && blank(text[before - 1])) --before;
      const bool pre = before >= 2 && (text.substr(before - 2, 2) == "++" || text.substr(before - 2, 2) == "--");
      std::size_t after = j;
      while (after < text.size() && blank(text[after])) ++after;
      const std::string_view rest = text.substr(after);
      const bool post = rest.starts_with("++") || rest.starts_with("--");
      bool assign = rest.starts_with("=") && !rest.starts_with("==");
      for (std::string_view op : {"+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="})
        assign = assign || rest.starts_with(op);
      if (pre || post || assign) forget(std::string(text.substr(i, j - i)));
      i = j;
    }
  }

  // `(( N++ ))`: tree-sitter-bash 0.23 reads it as a test command, `(( N = 8 ))` as a command.
  void arithmetic(TSNode n, bool conditional) {
    const std::string_view text = ts::text(n, src_);
    default_assignments(text, conditional);
    if (text.rfind("((", 0) == 0) arithmetic_assignments(text.substr(2));
  }

  // `unset NAME...`: the variable is unset again (read as one the script never assigned);
  // `unset -f NAME` removes a function.
  void unset(TSNode n, bool conditional) {
    bool functions = false;
    for (TSNode c : ts::named_children(n)) {
      const std::string word(ts::text(c, src_));
      if (word.empty()) continue;
      if (word[0] == '-') {
        functions = functions || word.find('f') != std::string::npos;
        continue;
      }
      if (word.find_first_of("$`\"'") != std::string::npos) {
        forget_all();  // a name we cannot read
        continue;
      }
      if (functions) {
        set_function(word, std::nullopt);
        continue;
      }
      auto it = vars_.find(word);
      if (it != vars_.end() && it->second.fixed) continue;
      // On one path only: set on the other, so neither its value nor unset.
      if (conditional && it != vars_.end())
        forget(word);
      else
        erase_var(word);
    }
  }

  // A call of a function defined in this text: its body runs now, with the variables as they are
  // (`ACC=...` between the definition and the call counts); `$1`... are unknown. What it changes
  // is then undone and replaced with call_function's (its assignments unknown). Calls nested
  // more than 4 deep (recursion) are left to call_function only.
  void walk_call(const FunctionEffect& effect, bool conditional) {
    if (ts_node_is_null(effect.body) || effect.src == nullptr || effect.src != src_.data() || call_depth_ >= 4 ||
        book_->walks_left <= 0 || book_->commands_left <= 0)
      return;
    --book_->walks_left;
    book_->called.insert(effect.definition);
    ShellScope scope;
    scope.cwd = cwd_;
    scope.cwd_known = cwd_known_;
    scope.dir_stack = dir_stack_;
    scope.script_dir = script_dir_;
    scope.opaque = opaque_;
    const std::string_view saved_text = command_text_;
    scopes_.push_back(std::move(scope));
    ++call_depth_;
    run(effect.body, conditional ? 1 : 0);
    --call_depth_;
    const bool ran_opaque = scopes_.back().ran_opaque, changed_dir = scopes_.back().changed_dir;
    end_scope();
    command_text_ = saved_text;
    if (ran_opaque) become_opaque();
    if (changed_dir) dir_changed();
  }

  void call_function(const FunctionEffect& effect) {
    for (const auto& var : effect.assigned) forget(var);
    if (effect.opaque) forget_all();
    if (effect.changes_dir) {
      cwd_known_ = false;
      dir_stack_.clear();
      dir_changed();
    }
  }

  // Builtins that assign the variables they name.
  bool assigning_builtin(std::string_view prog, const std::vector<RawWord>& argv) {
    if (prog == "read" || prog == "mapfile" || prog == "readarray") {
      // Every word but the options: names to read into (an option's argument is forgotten too,
      // which costs nothing). mapfile without a name fills MAPFILE, read without one REPLY.
      for (std::size_t k = 1; k < argv.size(); ++k)
        if (argv[k].known && !argv[k].text.empty() && argv[k].text[0] != '-') forget(argv[k].text);
      return true;
    }
    if (prog == "getopts") {
      if (argv.size() >= 3 && argv[2].known) forget(argv[2].text);
      return true;
    }
    if (prog == "let") {
      for (std::size_t k = 1; k < argv.size(); ++k) arithmetic_assignments(argv[k].text);
      return true;
    }
    if (prog == "printf") {
      for (std::size_t k = 1; k + 1 < argv.size(); ++k)
        if (argv[k].known && argv[k].text == "-v") {
          if (argv[k + 1].known)
            forget(argv[k + 1].text);
          else
            forget_all();  // a name we cannot read
        }
      return true;
    }
    if (prog == "source" || prog == ".") {
      sourced(argv.size() >= 2 ? argv[1] : RawWord{}, argv.size() >= 2 ? raw_word(argv[1]) : std::string_view());
      return true;
    }
    return false;
  }

  // The text of `w` as written in the command being read (`"$HOME/.bashrc"`).
  std::string_view raw_word(const RawWord& w) const {
    return w.end > w.begin && w.end <= command_text_.size() ? command_text_.substr(w.begin, w.end - w.begin)
                                                            : std::string_view();
  }

  // `source FILE`: where FILE lives decides.
  // - A file of the project (a relative path, or one we cannot read) may set any variable.
  // - A file outside it (under the home folder or an absolute path: the user's shell setup,
  //   conda's, an environment module's) belongs to the environment. trl-lint takes the
  //   environment to set none of the script's variables, as it takes it to leave unset the
  //   ones the script reads with a default (`${N:-8}` is 8).
  // - A virtual environment's `bin/activate` sets its own variables only, and conda's `source
  //   activate NAME` the environment's.
  void sourced(const RawWord& path, std::string_view raw) {
    std::string_view r = raw;
    while (!r.empty() && (r.front() == '"' || r.front() == '\'')) r.remove_prefix(1);
    while (!r.empty() && (r.back() == '"' || r.back() == '\'')) r.remove_suffix(1);
    const bool venv = r == "bin/activate" || r.ends_with("/bin/activate");
    if (venv) {
      for (std::string_view v : kVenvActivateVars) forget(std::string(v));
      return;
    }
    // `$HOME` itself, not `$HOME_DIR`; an absolute path, but not /dev/stdin or /proc (what the
    // script itself feeds in).
    auto under = [&](std::string_view var) {
      return r.starts_with(var) && (r.size() == var.size() || r[var.size()] == '/');
    };
    const bool home = under("~") || under("$HOME") || under("${HOME}");
    const bool absolute = path.known && r.starts_with("/") && !r.starts_with("/dev/") && !r.starts_with("/proc/");
    const bool conda = r == "activate" || r == "deactivate" || under("$(conda info --base)") ||
                       under("$(mamba info --base)") || under("${CONDA_PREFIX}") || under("$CONDA_PREFIX");
    if (home || absolute || conda) return;
    forget_all();
  }

  VarLookup lookup() {
    return [this](std::string_view name) -> std::optional<VarValue> {
      auto it = vars_.find(std::string(name));
      if (it == vars_.end()) {
        if (opaque_) return VarValue{std::string(1, kUnknownMark), false};
        return std::nullopt;
      }
      return VarValue{it->second.text, it->second.known};
    };
  }

  void set_var(const std::string& name, const RawWord& value, bool conditional, bool exported) {
    auto it = vars_.find(name);
    if (conditional && it != vars_.end() && (it->second.text != value.text || !it->second.known)) {
      // Two different values on different paths: unknown from here on.
      Var v = it->second;
      v.known = false;
      v.text = std::string(1, kUnknownMark);
      v.exported = v.exported || exported;
      put(name, std::move(v));
      return;
    }
    put(name, Var{value.text, value.known, exported || (it != vars_.end() && it->second.exported)});
  }

  void assignment(TSNode n, bool conditional, bool exported) {
    TSNode name = ts::field(n, "name");
    if (ts_node_is_null(name)) return;
    std::string var(ts::text(name, src_));
    std::uint32_t value_begin = ts_node_end_byte(name) + 1;  // after '='
    std::uint32_t value_end = ts_node_end_byte(n);
    if (value_begin > value_end) value_begin = value_end;
    default_assignments(src_.substr(value_begin, value_end - value_begin), conditional);
    if (value_begin > 0 && src_.substr(value_begin - 1, 1) != "=") {
      // `+=`: appending to something we do not track precisely.
      set_var(var, RawWord{std::string(1, kUnknownMark), false}, conditional, exported);
      return;
    }
    set_var(var, expand_value(src_.substr(value_begin, value_end - value_begin), lookup()), conditional, exported);
  }

  void declaration(TSNode n, bool conditional) {
    std::string_view head = ts::text(n, src_);
    const bool exported = head.rfind("export", 0) == 0;
    for (TSNode c : ts::named_children(n)) {
      const auto type = ts::type(c);
      if (type == "variable_assignment") {
        assignment(c, conditional, exported);
      } else if (exported && type == "variable_name") {
        auto it = vars_.find(std::string(ts::text(c, src_)));
        if (it != vars_.end() && !it->second.exported) {
          Var v = it->second;
          v.exported = true;
          put(it->first, std::move(v));
        }
      } else if (type != "variable_name" && type != "word") {
        // `export $(grep -v '^#' .env | xargs)`, `declare "$name=1"`: names we cannot read.
        forget_all();
      }
    }
  }

  void command(TSNode n, bool conditional) {
    const std::uint32_t begin = ts_node_start_byte(n), end = ts_node_end_byte(n);
    // tree-sitter-bash 0.23 reads `A=1 B=2<newline>cmd ...` (a comment may come between) as one
    // command whose prefixes are the assignments. For bash the line ends a command: the
    // assignments stand alone, and `cmd ...` is a command of its own.
    TSNode name = ts::field(n, "name");
    if (!ts_node_is_null(name)) {
      // An unescaped line break in [from, to) (a backslash-newline continues the line).
      auto line_break = [&](std::uint32_t from, std::uint32_t to) {
        for (std::uint32_t i = from; i < to; ++i) {
          if (src_[i] != '\n') continue;
          std::uint32_t j = i;
          if (j > 0 && src_[j - 1] == '\r') --j;
          if (j == 0 || src_[j - 1] != '\\') return true;
        }
        return false;
      };
      // The prefixes in groups, one per line: each group is read as a command of its own.
      const std::uint32_t name_begin = ts_node_start_byte(name);
      std::vector<std::pair<std::uint32_t, std::uint32_t>> groups;
      bool broken = false;  // a comment or a line break since the last prefix
      for (TSNode c : ts::named_children(n)) {
        if (ts_node_start_byte(c) >= name_begin) break;
        if (ts::type(c) == "comment") {
          broken = true;
          continue;
        }
        const std::uint32_t b = ts_node_start_byte(c), e = ts_node_end_byte(c);
        if (groups.empty() || broken || line_break(groups.back().second, b))
          groups.emplace_back(b, e);
        else
          groups.back().second = e;
        broken = false;
      }
      if (!groups.empty() && (broken || line_break(groups.back().second, name_begin))) {
        for (const auto& [b, e] : groups) command_text(b, e, conditional);
        command_text(name_begin, end, conditional);
        return;
      }
    }
    command_text(begin, end, conditional);
  }

  void command_text(std::uint32_t begin, std::uint32_t end, bool conditional) {
    // tree-sitter-bash 0.23 splits `A=x_$B.c` into an assignment ending at `$` and a command
    // named `B.c`. Words are therefore re-split here from the command's own text.
    std::string_view text = src_.substr(begin, end - begin);
    command_text_ = text;
    default_assignments(text, conditional);
    if (text.rfind("((", 0) == 0) {  // `(( N = 8 ))`
      arithmetic_assignments(text.substr(2));
      return;
    }
    // Leading NAME=value words are assignments (prefix or standalone).
    auto words = split_words(text, lookup());
    std::vector<std::pair<std::string, RawWord>> prefix;
    std::size_t i = 0;
    for (; i < words.size(); ++i) {
      std::string_view raw = text.substr(words[i].begin, words[i].end - words[i].begin);
      auto eq = raw.find('=');
      if (eq == std::string_view::npos || eq == 0) break;
      bool valid = true;
      for (char c : raw.substr(0, eq)) valid = valid && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
      if (!valid || std::isdigit(static_cast<unsigned char>(raw[0]))) break;
      RawWord value = expand_value(raw.substr(eq + 1), lookup());
      prefix.emplace_back(std::string(raw.substr(0, eq)), value);
    }
    if (i == words.size()) {
      for (auto& [name, value] : prefix) set_var(name, value, conditional, false);
      return;
    }
    // Unquoted expansions are split on blanks (`$LAUNCHER $CMD`); a NAME=value word that an
    // expansion produced is read as an assignment too (lenient: bash would run it as a program).
    std::vector<RawWord> argv;
    for (std::size_t k = i; k < words.size(); ++k) {
      if (words[k].unquoted_expansion) {
        for (auto& f : field_split(words[k])) argv.push_back(std::move(f));
      } else {
        argv.push_back(words[k]);
      }
    }
    while (!argv.empty() && argv.front().known && i < words.size() && words[i].unquoted_expansion) {
      const std::string& t = argv.front().text;
      auto eq = t.find('=');
      if (eq == std::string::npos || eq == 0 || std::isdigit(static_cast<unsigned char>(t[0]))) break;
      bool valid = true;
      for (char c : t.substr(0, eq)) valid = valid && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
      if (!valid) break;
      RawWord v = argv.front();
      v.text = t.substr(eq + 1);
      prefix.emplace_back(t.substr(0, eq), v);
      argv.erase(argv.begin());
    }
    if (argv.empty()) return;
    const Span command_span = command_span_ ? *command_span_ : span(begin, end);
    // `builtin source f`, `command . f`: the builtin itself.
    while (argv.size() > 1 && argv[0].known && (argv[0].text == "builtin" || argv[0].text == "command") &&
           argv[1].known && !argv[1].text.starts_with("-"))
      argv.erase(argv.begin());
    top_level_exit(argv);
    std::string_view prog = argv[0].known ? program_basename(argv[0].text) : std::string_view();
    if (prog == "cd" || prog == "pushd" || prog == "popd") {
      change_dir(argv, conditional);
      return;
    }
    if (argv[0].known)
      if (auto f = functions_.find(argv[0].text); f != functions_.end()) {
        const FunctionEffect effect = f->second;
        walk_call(effect, conditional);
        call_function(effect);
        // A function named after a launcher (a wrapper) runs in its place; the command is
        // still read as the launch it looks like.
        if (!is_launcher_program(prog)) return;
      }
    if (assigning_builtin(prog, argv)) return;
    // Skip wrappers until the launcher itself.
    std::size_t start = 0;
    EnvChanges env_changes;
    std::string_view wrapper;  // the last wrapper skipped: its options are read
    bool env_options = false;  // just after `env`: its options come first (getopt "+C:iS:u:v0")
    while (start < argv.size()) {
      if (env_options && argv[start].known && argv[start].text.size() > 1 && argv[start].text[0] == '-') {
        start = env_option(argv, start, prefix, env_changes);
        continue;
      }
      if (env_options && argv[start].known && argv[start].text == "-") {  // `env -`: as -i
        env_changes.ignore = true;
        prefix.clear();
        ++start;
        continue;
      }
      env_options = false;
      if (!wrapper.empty() && argv[start].known && argv[start].text.size() > 1 && argv[start].text[0] == '-') {
        // A wrapper's option, and its value when it takes the next word (`conda run -n trl`).
        const std::string& o = argv[start].text;
        const std::size_t eq = o.find('=');
        const std::string_view name = std::string_view(o).substr(0, eq);
        if (wrapper_option_changes_dir(wrapper, name)) env_changes.chdir = true;
        if (wrapper == "mpirun" && (name == "-x" || name == "--x") && start + 1 < argv.size()) {
          // `mpirun -x NAME=VALUE`: set in the launched processes' environment.
          const RawWord& w = argv[start + 1];
          const std::size_t weq = w.text.find('=');
          if (weq != std::string::npos && weq > 0)
            prefix.emplace_back(w.text.substr(0, weq), RawWord{w.text.substr(weq + 1), w.known});
        }
        start += eq == std::string::npos && wrapper_option_takes_value(wrapper, name) ? 2 : 1;
        continue;
      }
      std::string_view p = argv[start].known ? program_basename(argv[start].text) : std::string_view();
      if (p == "env") {
        env_options = true;
        ++start;
        continue;
      }
      // `trl` right before another launcher is no `trl` command (a wrapper's value not listed).
      if (p == "trl" && start + 1 < argv.size() && argv[start + 1].known &&
          is_launcher_program(program_basename(argv[start + 1].text)) && !wrapper.empty()) {
        ++start;
        continue;
      }
      if (is_launcher_program(p)) break;
      if (is_wrapper(p)) wrapper = p;
      if (p == "bash" || p == "sh" || p == "zsh" || p == "dash") {
        // bash [-l|-x...] -c STRING
        std::size_t k = start + 1;
        bool dash_c = false;
        while (k < argv.size() && argv[k].known && argv[k].text.size() > 1 && argv[k].text[0] == '-' &&
               argv[k].text[1] != '-') {
          dash_c = argv[k].text.find('c') != std::string::npos;
          ++k;
          if (dash_c) break;
        }
        if (dash_c && k < argv.size())
          nested(argv[k].text, span(begin + argv[k].begin, begin + argv[k].end), command_span, false, prefix);
        return;
      }
      if (p == "eval" && start + 1 < argv.size()) {
        std::string joined;
        bool known = true;
        for (std::size_t k = start + 1; k < argv.size(); ++k) {
          joined += (k > start + 1 ? " " : "") + argv[k].text;
          known = known && argv[k].known && argv[k].text.find(kUnknownMark) == std::string::npos;
        }
        // eval runs the string in this shell: what it assigns stays. Unknown text may assign
        // anything, unless it is the output of a tool setting up its own environment
        // (`eval "$(conda shell.bash hook)"`, `eval $(ssh-agent -s)`).
        const bool walked =
            nested(joined, span(begin + argv[start + 1].begin, begin + argv.back().end), command_span, true, prefix);
        if (!walked || !known) {
          // The one argument is exactly one `$( )` or backticks, and nothing else.
          std::string_view r = raw_word(argv[start + 1]);
          if (r.size() >= 2 && r.front() == '"' && r.back() == '"') r = r.substr(1, r.size() - 2);
          std::string_view inside;
          if (r.size() > 3 && r.starts_with("$(") && r.ends_with(")") && r.find(')') == r.size() - 1)
            inside = r.substr(2, r.size() - 3);
          else if (r.size() > 2 && r.front() == '`' && r.back() == '`' && r.find('`', 1) == r.size() - 1)
            inside = r.substr(1, r.size() - 2);
          if (argv.size() != start + 2 || inside.empty() || !environment_hook(inside)) forget_all();
        }
        return;
      }
      if (start == 0 && !is_wrapper(p)) {
        file_writers(p, argv, begin);
        return;
      }
      if (p == "env" || start > 0) {
        // env VAR=value ...: more prefix assignments.
        auto eq = argv[start].text.find('=');
        if (eq != std::string::npos && eq > 0 && argv[start].text[0] != '-') {
          RawWord v{argv[start].text.substr(eq + 1), argv[start].known};
          prefix.emplace_back(argv[start].text.substr(0, eq), v);
        }
      }
      ++start;
    }
    if (start >= argv.size()) return;
    CommandFact fact;
    fact.span = command_span;
    for (const auto& [name, var] : vars_) {
      if (!var.exported || env_changes.ignore || env_changes.unset.count(name)) continue;
      if (env_changes.unset_unknown)
        fact.env.push_back({name, finish(RawWord{std::string(1, kUnknownMark), false}, Span{})});
      else
        fact.env.push_back({name, finish(RawWord{var.text, var.known}, Span{})});
    }
    for (auto& [name, value] : prefix) {
      fact.env.push_back({name, finish(value, fact.span)});
    }
    for (std::size_t k = start; k < argv.size(); ++k) {
      fact.argv.push_back(finish(argv[k], span(begin + argv[k].begin, begin + argv[k].end)));
    }
    fact.cwd = cwd_;
    fact.cwd_known = cwd_known_ && !env_changes.chdir;
    fact.cwd_script_dir = script_dir_;
    (void)conditional;
    // Inside a function's definition: read again at its calls. Read at a call: once per value.
    int definition = -1;
    for (auto sc = scopes_.rbegin(); sc != scopes_.rend() && definition < 0; ++sc)
      if (sc->function) definition = sc->definition;
    if (definition >= 0) {
      book_->defined.emplace_back(definition, facts_.commands.size());
    } else if (call_depth_ > 0) {
      --book_->commands_left;
      auto [b, e] = book_->by_begin.equal_range(fact.span.begin);
      for (auto it = b; it != e; ++it)
        if (it->second < facts_.commands.size() && same_command(facts_.commands[it->second], fact)) return;
      book_->by_begin.emplace(fact.span.begin, facts_.commands.size());
    }
    facts_.commands.push_back(std::move(fact));
  }

  // What `env`'s options do to the command's environment and folder.
  struct EnvChanges {
    bool ignore = false;          // -i, --ignore-environment, `-`: no exported variable
    std::set<std::string> unset;  // -u NAME, --unset=NAME
    bool unset_unknown = false;   // -u with a name we cannot read: any exported variable may be gone
    bool chdir = false;           // -C DIR, --chdir=DIR
  };

  // Reads the env option at argv[k] (GNU coreutils env: -i, -0, -v, -u NAME, -C DIR, -S STRING,
  // their long forms, and short ones clustered as getopt reads them); returns the index after it
  // and its argument. Prefix assignments made before are dropped as the option drops them.
  static std::size_t env_option(const std::vector<RawWord>& argv, std::size_t k,
                                std::vector<std::pair<std::string, RawWord>>& prefix, EnvChanges& changes) {
    const std::string& o = argv[k].text;
    auto unset = [&](const RawWord* name) {
      if (!name || !name->known || name->text.find(kUnknownMark) != std::string::npos) {
        changes.unset_unknown = true;
        for (auto& [n, v] : prefix) v = RawWord{std::string(1, kUnknownMark), false};
        return;
      }
      changes.unset.insert(name->text);
      std::erase_if(prefix, [&](const auto& entry) { return entry.first == name->text; });
    };
    auto ignore = [&] {
      changes.ignore = true;
      prefix.clear();
    };
    const RawWord* next = k + 1 < argv.size() ? &argv[k + 1] : nullptr;
    if (o == "--") return k + 1;
    if (o.starts_with("--")) {
      const std::size_t eq = o.find('=');
      const std::string name = o.substr(0, eq);
      const bool inline_value = eq != std::string::npos;
      RawWord value = argv[k];
      if (inline_value) value.text = o.substr(eq + 1);
      if (name == "--ignore-environment") ignore();
      if (name == "--unset") unset(inline_value ? &value : next);
      if (name == "--chdir") changes.chdir = true;
      const bool takes_value = name == "--unset" || name == "--chdir" || name == "--split-string";
      return k + (takes_value && !inline_value ? 2 : 1);
    }
    for (std::size_t i = 1; i < o.size(); ++i) {
      const char c = o[i];
      if (c == 'i') ignore();
      if (c != 'u' && c != 'C' && c != 'S') continue;
      // The option's value: the rest of this word, or the next word.
      const bool rest = i + 1 < o.size();
      RawWord value = argv[k];
      if (rest) value.text = o.substr(i + 1);
      if (c == 'u') unset(rest ? &value : next);
      if (c == 'C') changes.chdir = true;
      return k + (rest ? 1 : 2);
    }
    return k + 1;
  }

  // `cd [-L|-P|-e|-@]... [--] [DIR]`, `pushd DIR`, `popd`. Without a folder (or with `~...`,
  // `-`), the shell goes to $HOME or $OLDPWD: unknown.
  void change_dir(const std::vector<RawWord>& argv, bool conditional) {
    const std::string_view prog = program_basename(argv[0].text);
    std::vector<const RawWord*> operands;
    bool options = true, bad_option = false;
    for (std::size_t k = 1; k < argv.size(); ++k) {
      const RawWord& w = argv[k];
      if (options && w.known && w.text == "--") {
        options = false;
        continue;
      }
      if (options && w.known && w.text.size() > 1 && w.text[0] == '-') {
        // cd's options; pushd/popd take `-n` and `+N`/`-N` stack positions (not followed).
        bad_option = bad_option || prog != "cd" || w.text.find_first_not_of("LPe@", 1) != std::string::npos;
        continue;
      }
      if (options && w.known && prog != "cd" && w.text.size() > 1 && w.text[0] == '+') {
        bad_option = true;
        continue;
      }
      options = false;
      operands.push_back(&w);
    }
    dir_changed();
    if (prog == "popd") {
      if (bad_option || !operands.empty() || dir_stack_.empty() || conditional) {
        cwd_known_ = false;
        dir_stack_.clear();
        return;
      }
      cwd_ = std::move(dir_stack_.back().cwd);
      cwd_known_ = dir_stack_.back().known;
      script_dir_ = dir_stack_.back().script_dir;
      dir_stack_.pop_back();
      return;
    }
    if (prog == "pushd") {
      if (bad_option || operands.size() != 1 || conditional) {
        cwd_known_ = false;
        dir_stack_.clear();
        return;
      }
      dir_stack_.push_back({cwd_, cwd_known_, script_dir_});
    }
    if (bad_option || operands.size() != 1 || conditional || !operands[0]->known) {
      cwd_known_ = false;
      return;
    }
    std::string dir = operands[0]->text;
    const std::string marker = "$SCRIPT_DIR$";
    if (dir.rfind(marker, 0) == 0) {
      cwd_.clear();
      cwd_known_ = true;
      script_dir_ = true;
      dir = dir.substr(marker.size());
      while (!dir.empty() && dir[0] == '/') dir.erase(0, 1);
      if (dir.empty()) return;
    }
    if (dir.empty() || dir[0] == '/' || dir[0] == '~' || dir == "-") {
      cwd_known_ = false;  // an absolute path on the user's machine, $HOME, $OLDPWD
      return;
    }
    cwd_ = cwd_.empty() ? dir : cwd_ + "/" + dir;
  }

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

}  // namespace

std::string_view program_basename(std::string_view p) {
  auto slash = p.rfind('/');
  return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

bool is_python_interpreter(std::string_view name) {
  if (name.rfind("python", 0) != 0) return false;
  for (char c : name.substr(6))
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return false;
  return true;
}

bool is_launcher_program(std::string_view p) {
  // accelerate-launch: accelerate's console script for `accelerate launch` (setup.py
  // console_scripts: accelerate-launch=accelerate.commands.launch:main).
  return p == "accelerate" || p == "accelerate-launch" || p == "torchrun" || p == "deepspeed" || p == "trl" ||
         is_python_interpreter(p);
}

namespace {

// `--gres=gpu:8,lscratch:100`: the count of the one `gpu[:type]:count` entry of the list; empty
// (unknown) for anything else (no gpu entry, several, a count left to its default, flags).
std::string gres_gpu_count(const std::string& list) {
  std::string count;
  int gpu_entries = 0;
  std::size_t pos = 0;
  while (pos <= list.size()) {
    std::size_t comma = list.find(',', pos);
    if (comma == std::string::npos) comma = list.size();
    const std::string entry = list.substr(pos, comma - pos);
    pos = comma + 1;
    std::vector<std::string> parts;
    for (std::size_t b = 0;;) {
      std::size_t colon = entry.find(':', b);
      parts.push_back(entry.substr(b, colon == std::string::npos ? std::string::npos : colon - b));
      if (colon == std::string::npos) break;
      b = colon + 1;
    }
    if (parts[0] != "gpu") continue;
    ++gpu_entries;
    count.clear();
    if (parts.size() == 2 || parts.size() == 3) count = parts.back();
  }
  return gpu_entries == 1 ? count : std::string();
}

}  // namespace

std::vector<PredefinedVar> sbatch_variables(std::string_view text) {
  std::vector<PredefinedVar> out;
  std::string nodes, gpus_per_node, tasks_per_node, gres_gpus;
  std::size_t pos = 0;
  auto is_count = [](const std::string& v) {
    return !v.empty() && v.size() < 7 &&
           std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  };
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) continue;
    if (line[0] != '#') break;  // sbatch stops reading directives at the first command
    if (line.rfind("#SBATCH", 0) != 0) continue;
    auto words = split_words(line.substr(7), [](std::string_view) { return std::optional<VarValue>(); });
    for (std::size_t k = 0; k < words.size(); ++k) {
      std::string w = words[k].text, name = w, value;
      auto eq = w.find('=');
      if (eq != std::string::npos) {
        name = w.substr(0, eq);
        value = w.substr(eq + 1);
      } else if (name.size() > 2 && name[0] == '-' && name[1] != '-') {
        value = name.substr(2);  // -N2
        name = name.substr(0, 2);
      } else if (k + 1 < words.size()) {
        value = words[++k].text;
      }
      if (name == "--nodes" || name == "-N") nodes = value;
      if (name == "--gpus-per-node")
        gpus_per_node = value.find(',') == std::string::npos ? value.substr(value.rfind(':') + 1) : std::string();
      if (name == "--ntasks-per-node") tasks_per_node = value;
      if (name == "--gres") gres_gpus = gres_gpu_count(value);
    }
  }
  auto add = [&](const char* var, const std::string& v) {
    if (is_count(v)) out.push_back({var, v, true, true, true});
  };
  add("SLURM_NNODES", nodes);
  add("SLURM_JOB_NUM_NODES", nodes);
  add("SLURM_GPUS_PER_NODE", gpus_per_node);
  add("SLURM_NTASKS_PER_NODE", tasks_per_node);
  add("SLURM_GPUS_ON_NODE", gpus_per_node.empty() ? gres_gpus : gpus_per_node);
  return out;
}

ShellFacts extract(std::string_view text, FileId file, const ExtractOptions& options) {
  ShellFacts facts;
  ts::Tree tree = ts::parse(tree_sitter_bash(), text);
  if (!tree) {
    facts.problems.push_back({"TRL903", ts::parse_failure_message("shell script"), Span{file}});
    return facts;
  }
  const bool mapped = !options.offsets.empty() && options.offsets.size() == text.size() + 1;
  const bool layout = mapped || (options.line_layout.size() == text.size() && !text.empty());
  Walker walker(text, file, facts, layout ? options.line_layout : std::string_view());
  if (mapped) walker.offsets_ = &options.offsets;
  for (const auto& v : sbatch_variables(text)) walker.vars_[v.name] = Var{v.value, v.known, v.exported, v.fixed};
  for (const auto& v : options.vars) {
    std::string value = v.value;
    if (!v.known && value.find(kUnknownMark) == std::string::npos) value.push_back(kUnknownMark);
    walker.vars_[v.name] = Var{value, v.known, v.exported, v.fixed};
  }
  walker.cwd_ = options.cwd;
  walker.cwd_known_ = options.cwd_known;
  walker.base_offset_ = options.base_offset;
  walker.base_line_ = options.base_line;
  walker.run(ts_tree_root_node(tree.get()));
  walker.drop_called_definitions();
  facts.comments = ts::comments(ts_tree_root_node(tree.get()), text, file);
  if (layout) {
    // Lines and columns from the layout (the text's own breaks were partly joined, or the text
    // is an expansion of it).
    Walker lines(options.line_layout, file, facts, options.line_layout);
    for (Comment& c : facts.comments) {
      if (mapped) {
        c.span.begin = options.offsets[std::min<std::size_t>(c.span.begin, text.size())];
        c.span.end = std::max(c.span.begin, options.offsets[std::min<std::size_t>(c.span.end, text.size())]);
      }
      const Span s = lines.plain_span(c.span.begin, c.span.end);
      c.span.start = s.start;
      c.span.stop = s.stop;
    }
  }
  for (Comment& c : facts.comments) {
    c.span.begin += options.base_offset;
    c.span.end += options.base_offset;
    c.span.start.line += options.base_line;
    c.span.stop.line += options.base_line;
  }
  return facts;
}

ShellFacts extract_session(std::string_view text, const std::vector<SessionPiece>& pieces, FileId file,
                           const ExtractOptions& options) {
  ShellFacts facts;
  std::map<std::string, Var> vars;
  for (const auto& v : options.vars) {
    std::string value = v.value;
    if (!v.known && value.find(kUnknownMark) == std::string::npos) value.push_back(kUnknownMark);
    vars[v.name] = Var{value, v.known, v.exported, v.fixed};
  }
  std::string cwd = options.cwd;
  bool cwd_known = options.cwd_known;
  std::map<std::string, FunctionEffect> functions;
  bool opaque = false;
  for (const SessionPiece& piece : pieces) {
    if (piece.begin >= piece.end || piece.end > text.size()) continue;
    std::string_view src = text.substr(piece.begin, piece.end - piece.begin);
    ts::Tree tree = ts::parse(tree_sitter_bash(), src);
    ShellFacts piece_facts;
    Walker walker(src, file, piece_facts);
    // An isolated piece works on copies; the others take the state and hand it back below.
    walker.vars_ = piece.isolated ? vars : std::exchange(vars, {});
    walker.cwd_ = piece.isolated ? cwd : std::exchange(cwd, {});
    walker.functions_ = piece.isolated ? functions : std::exchange(functions, {});
    walker.cwd_known_ = cwd_known;
    walker.opaque_ = opaque;
    walker.base_offset_ = options.base_offset + piece.begin;
    walker.base_line_ = options.base_line + piece.line;
    if (!tree) {
      walker.lose_track();
    } else {
      TSNode root = ts_tree_root_node(tree.get());
      walker.run(root);
      walker.drop_called_definitions();
      if (ts_node_has_error(root)) walker.lose_track();
      for (Comment c : ts::comments(root, src, file)) {
        c.span.begin += walker.base_offset_;
        c.span.end += walker.base_offset_;
        c.span.start.line += walker.base_line_;
        c.span.stop.line += walker.base_line_;
        facts.comments.push_back(std::move(c));
      }
    }
    if (!piece.isolated) {
      vars = std::move(walker.vars_);
      cwd = std::move(walker.cwd_);
      cwd_known = walker.cwd_known_;
      functions = std::move(walker.functions_);
      for (auto& [name, f] : functions) f.src = nullptr;  // this piece's tree is gone after it
      opaque = walker.opaque_;
    }
    for (auto& c : piece_facts.commands) facts.commands.push_back(std::move(c));
    for (auto& c : piece_facts.created) facts.created.push_back(std::move(c));
    for (auto& c : piece_facts.problems) facts.problems.push_back(std::move(c));
  }
  return facts;
}

}  // namespace trl::shell
