// Finds training launch commands in a shell script: walks the script's syntax tree in order
// (Walker), reading each command's words, the folder it runs in (`cd`, `pushd`, `popd`), the
// scripts it runs in turn (`bash -c STRING`, `eval`) and the launch it makes once its wrappers
// are skipped. The variables and functions it follows are shell_variables.cpp's; what the
// programs it meets do is launchers.cpp's and file_writers.cpp's.
#include "analyzer/shell/shell_extractor.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "analyzer/parse/tree_sitter.hpp"
#include "analyzer/shell/shell_internal.hpp"
#include "analyzer/shell/shell_words.hpp"
#include "rules/tool/tool_rules.hpp"

namespace trl::shell {

namespace detail {

namespace {

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

}  // namespace

void Walker::run(TSNode root, int conditional) {
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

// A command of the script's own top level: a child of the program, or the body of a
// redirected statement that is (`exit 1 2>/dev/null`); not part of a list, pipeline or body.
bool Walker::at_top(TSNode n) {
  TSNode parent = ts_node_parent(n);
  if (!ts_node_is_null(parent) && ts::type(parent) == "redirected_statement") parent = ts_node_parent(parent);
  return !ts_node_is_null(parent) && ts::type(parent) == "program";
}

// `exit`, or `exec` with a command, run unconditionally at the top level: the script ends
// there. `exec` with redirections only (`exec > log 2>&1`) changes this shell's files and goes
// on; `exec $CMD` with an unknown CMD may be empty and go on too.
void Walker::top_level_exit(const std::vector<RawWord>& argv) {
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

Point Walker::point(std::uint32_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  std::uint32_t line = static_cast<std::uint32_t>(it - line_starts_.begin()) - 1;
  return Point{line + base_line_, offset - line_starts_[line]};
}

// Offsets to a span in the text's own coordinates (no base offset or line).
Span Walker::plain_span(std::uint32_t b, std::uint32_t e) const {
  return Span{file_, b, e, point(b), point(e)};
}

// Drops the commands read at the definition of functions whose body was walked at a call.
void Walker::drop_called_definitions() {
  std::vector<std::size_t> drop;
  for (const auto& [definition, index] : book_->defined)
    if (book_->called.count(definition) && index < facts_.commands.size()) drop.push_back(index);
  std::sort(drop.begin(), drop.end());
  drop.erase(std::unique(drop.begin(), drop.end()), drop.end());
  for (auto it = drop.rbegin(); it != drop.rend(); ++it)
    facts_.commands.erase(facts_.commands.begin() + static_cast<std::ptrdiff_t>(*it));
  book_->defined.clear();
}

// A piece of a shell run (pieces run in one shell, in order) that did not parse: what it may have assigned is unknown
// to the pieces after it, and so is the folder when the piece names a command that changes it.
void Walker::lose_track() {
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

Span Walker::span(std::uint32_t b, std::uint32_t e) const {
  if (fixed_) return *fixed_;
  if (offsets_ && !offsets_->empty()) {
    b = (*offsets_)[std::min<std::size_t>(b, offsets_->size() - 1)];
    e = std::max(b, (*offsets_)[std::min<std::size_t>(e, offsets_->size() - 1)]);
  }
  return Span{file_, b + base_offset_, e + base_offset_, point(b), point(e)};
}

Word Walker::finish(const RawWord& raw, Span at) {
  Word w{raw.text, raw.known, at};
  if (const auto mark = w.text.find(kUnknownMark); mark != std::string::npos) {
    w.known = false;
    w.known_prefix = static_cast<std::uint32_t>(mark);
    std::erase(w.text, kUnknownMark);
  }
  return w;
}

void Walker::redirect(TSNode n) {
  std::string_view all = ts::text(n, src_);
  std::size_t k = 0;
  while (k < all.size() && std::isdigit(static_cast<unsigned char>(all[k]))) ++k;
  if (k < all.size() && all[k] == '&') ++k;
  if (k >= all.size() || all[k] != '>') return;
  TSNode dest = ts::field(n, "destination");
  if (ts_node_is_null(dest)) return;
  created(expand_value(ts::text(dest, src_), lookup()), span(ts_node_start_byte(dest), ts_node_end_byte(dest)));
}

void Walker::created(const RawWord& path, Span at) {
  if (!path.known || path.text.empty() || path.text.find(kUnknownMark) != std::string::npos) return;
  facts_.created.push_back({path.text, cwd_, cwd_known_, at, script_dir_});
}

// `bash -c "STRING"` and `eval STRING`: the string is parsed again as a script of its own.
// `eval` (all_vars) runs the string in this shell: afterwards this walker's variables and
// folder are the string's, when it was walked whole. Returns false when it was not.
bool Walker::nested(const std::string& text, Span at, Span command_span, bool all_vars,
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

void Walker::command(TSNode n, bool conditional) {
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

void Walker::command_text(std::uint32_t begin, std::uint32_t end, bool conditional) {
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

// `cd [-L|-P|-e|-@]... [--] [DIR]`, `pushd DIR`, `popd`. Without a folder (or with `~...`,
// `-`), the shell goes to $HOME or $OLDPWD: unknown.
void Walker::change_dir(const std::vector<RawWord>& argv, bool conditional) {
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

}  // namespace detail

using detail::FunctionEffect;
using detail::Var;
using detail::Walker;

ShellFacts extract(std::string_view text, FileId file, const ExtractOptions& options) {
  ShellFacts facts;
  ts::Tree tree = ts::parse(tree_sitter_bash(), text);
  if (!tree) {
    facts.problems.push_back({tool_rules::kSyntaxError, ts::parse_failure_message("shell script"), Span{file}});
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
