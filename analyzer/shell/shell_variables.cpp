// The shell's variables, functions and scopes as the walker follows them: assignments
// (`A=1`, `export`, `declare`, `${A:=1}`, arithmetic, `read`, `for`), `unset`, `source`, calls of
// the script's own functions, and the subshells and function bodies whose changes are undone at
// their end.
#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "analyzer/shell/shell_internal.hpp"

namespace trl::shell::detail {

namespace {

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

}  // namespace

// `for VAR in WORDS; do ... done` assigns VAR each word in turn before the body. Over exactly
// one known word, VAR is that word in the body and after the loop; over a known empty list the
// loop does not run and VAR keeps its value; over anything else (several words, an expansion
// that may split or be empty, a glob, a brace expansion, `for VAR; do` over "$@") VAR is
// unknown, in the body and after it. `select VAR in ...` sets VAR to the user's choice: unknown.
void Walker::loop_variable(TSNode n, bool conditional) {
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

// Every change of a variable goes through put and erase_var: inside a scope, the value before
// its first change is kept, to be put back at the scope's end.
void Walker::remember(const std::string& name) {
  if (!scopes_.empty()) save_first(scopes_.back().saved, vars_, name);
}

void Walker::put(const std::string& name, Var v) {
  remember(name);
  vars_[name] = std::move(v);
}

void Walker::erase_var(const std::string& name) {
  remember(name);
  vars_.erase(name);
}

// Functions are defined and removed through set_function, so that a scope can undo it: a
// definition inside a subshell, or inside a function's body, is gone after it.
void Walker::set_function(const std::string& name, std::optional<FunctionEffect> effect) {
  if (!scopes_.empty()) save_first(scopes_.back().saved_functions, functions_, name);
  if (effect)
    functions_[name] = std::move(*effect);
  else
    functions_.erase(name);
}

void Walker::end_scope() {
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
void Walker::forget(const std::string& name) {
  if (name.empty()) return;
  auto it = vars_.find(name);
  if (it != vars_.end() && it->second.fixed) return;
  const bool exported = it != vars_.end() && it->second.exported;
  put(name, Var{std::string(1, kUnknownMark), false, exported});
}

// The script ran something that may set any variable (`source FILE`, `eval` of unknown text):
// its own variables are unknown, and so is every variable it has not assigned.
void Walker::forget_all() {
  std::vector<std::string> names;
  for (const auto& [name, v] : vars_)
    if (!v.fixed && v.known) names.push_back(name);
  for (const auto& name : names) forget(name);
  become_opaque();
}

// Something run may have set any variable; a function doing it does so when called.
void Walker::become_opaque() {
  opaque_ = true;
  if (!scopes_.empty()) scopes_.back().ran_opaque = true;
}

void Walker::dir_changed() {
  if (!scopes_.empty()) scopes_.back().changed_dir = true;
}

// `${V:=x}` and `${V=x}` (outside single quotes) assign V when it is unset (or empty, with the
// colon), as they expand.
void Walker::default_assignments(std::string_view text, bool conditional) {
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
void Walker::arithmetic_assignments(std::string_view text) {
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
void Walker::arithmetic(TSNode n, bool conditional) {
  const std::string_view text = ts::text(n, src_);
  default_assignments(text, conditional);
  if (text.rfind("((", 0) == 0) arithmetic_assignments(text.substr(2));
}

// `unset NAME...`: the variable is unset again (read as one the script never assigned);
// `unset -f NAME` removes a function.
void Walker::unset(TSNode n, bool conditional) {
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
void Walker::walk_call(const FunctionEffect& effect, bool conditional) {
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

void Walker::call_function(const FunctionEffect& effect) {
  for (const auto& var : effect.assigned) forget(var);
  if (effect.opaque) forget_all();
  if (effect.changes_dir) {
    cwd_known_ = false;
    dir_stack_.clear();
    dir_changed();
  }
}

// Builtins that assign the variables they name.
bool Walker::assigning_builtin(std::string_view prog, const std::vector<RawWord>& argv) {
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
std::string_view Walker::raw_word(const RawWord& w) const {
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
void Walker::sourced(const RawWord& path, std::string_view raw) {
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

VarLookup Walker::lookup() {
  return [this](std::string_view name) -> std::optional<VarValue> {
    auto it = vars_.find(std::string(name));
    if (it == vars_.end()) {
      if (opaque_) return VarValue{std::string(1, kUnknownMark), false};
      return std::nullopt;
    }
    return VarValue{it->second.text, it->second.known};
  };
}

void Walker::set_var(const std::string& name, const RawWord& value, bool conditional, bool exported) {
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

void Walker::assignment(TSNode n, bool conditional, bool exported) {
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

void Walker::declaration(TSNode n, bool conditional) {
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

}  // namespace trl::shell::detail
