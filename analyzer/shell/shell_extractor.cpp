#include "analyzer/shell/shell_extractor.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "analyzer/parse/tree_sitter.hpp"
#include "analyzer/shell/shell_words.hpp"

namespace trl::shell {

namespace {

// Programs that run another command given as their arguments.
bool is_wrapper(std::string_view name) {
  return name == "exec" || name == "env" || name == "nohup" || name == "time" || name == "srun" || name == "nice" ||
         name == "stdbuf" || name == "sudo" || name == "mpirun" || name == "command" || name == "xargs" ||
         name == "timeout" || name == "numactl" || name == "taskset" || name == "uv" || name == "poetry" ||
         name == "pipenv" || name == "conda";
}

struct Var {
  std::string text;
  bool known = true;
  bool exported = false;
};

class Walker {
 public:
  Walker(std::string_view src, FileId file, ShellFacts& facts) : src_(src), file_(file), facts_(facts) {
    line_starts_.push_back(0);
    for (std::uint32_t i = 0; i < src.size(); ++i)
      if (src[i] == '\n') line_starts_.push_back(i + 1);
  }

  void run(TSNode root) {
    // Iterative walk with an explicit stack: scripts can nest deeply.
    struct Item {
      TSNode node;
      int conditional;
    };
    std::vector<Item> stack{{root, 0}};
    while (!stack.empty()) {
      Item it = stack.back();
      stack.pop_back();
      auto t = ts::type(it.node);
      if (t == "command") {
        command(it.node, it.conditional > 0);
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
      if (t == "function_definition" || t == "heredoc_body" || t == "comment") {
        if (t == "function_definition") {
          TSNode body = ts::field(it.node, "body");
          if (!ts_node_is_null(body)) stack.push_back({body, it.conditional + 1});
        }
        continue;
      }
      const bool cond = t == "if_statement" || t == "while_statement" || t == "for_statement" ||
                        t == "c_style_for_statement" || t == "case_statement" || t == "elif_clause" ||
                        t == "else_clause" || t == "case_item";
      auto kids = ts::named_children(it.node);
      for (auto k = kids.rbegin(); k != kids.rend(); ++k) stack.push_back({*k, it.conditional + (cond ? 1 : 0)});
    }
  }

 private:
  Point point(std::uint32_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    std::uint32_t line = static_cast<std::uint32_t>(it - line_starts_.begin()) - 1;
    return Point{line + base_line_, offset - line_starts_[line]};
  }
  Span span(std::uint32_t b, std::uint32_t e) const {
    if (fixed_) return *fixed_;
    return Span{file_, b + base_offset_, e + base_offset_, point(b), point(e)};
  }

  static Word finish(const RawWord& raw, Span at) {
    Word w{raw.text, raw.known, at};
    if (w.text.find(kUnknownMark) != std::string::npos) {
      w.known = false;
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
    facts_.created.push_back({path.text, cwd_, cwd_known_, at});
  }

  // Commands that write a file named in their arguments.
  void file_writers(std::string_view prog, const std::vector<RawWord>& argv, std::uint32_t base) {
    auto at = [&](const RawWord& w) { return span(base + w.begin, base + w.end); };
    if ((prog == "cp" || prog == "mv" || prog == "ln" || prog == "install") && argv.size() >= 3) {
      created(argv.back(), at(argv.back()));
    } else if (prog == "tee" || prog == "touch") {
      for (std::size_t k = 1; k < argv.size(); ++k)
        if (!argv[k].text.empty() && argv[k].text[0] != '-') created(argv[k], at(argv[k]));
    } else if (prog == "wget" || prog == "curl") {
      for (std::size_t k = 1; k + 1 < argv.size(); ++k)
        if (argv[k].text == "-O" || argv[k].text == "-o" || argv[k].text == "--output" ||
            argv[k].text == "--output-document")
          created(argv[k + 1], at(argv[k + 1]));
    }
  }

  // `bash -c "STRING"` and `eval STRING`: the string is parsed again as a script of its own.
  void nested(const std::string& text, Span at, Span command_span, bool all_vars,
              const std::vector<std::pair<std::string, RawWord>>& prefix) {
    if (depth_ >= 4 || text.empty()) return;
    ts::Tree tree = ts::parse(tree_sitter_bash(), text);
    if (!tree) return;
    Walker inner(text, file_, facts_);
    for (const auto& [name, v] : vars_)
      if (all_vars || v.exported) inner.vars_[name] = v;
    for (const auto& [name, v] : prefix) inner.vars_[name] = Var{v.text, v.known, true};
    inner.cwd_ = cwd_;
    inner.cwd_known_ = cwd_known_;
    inner.fixed_ = at;
    inner.command_span_ = command_span;
    inner.depth_ = depth_ + 1;
    inner.run(ts_tree_root_node(tree.get()));
  }

  VarLookup lookup() {
    return [this](std::string_view name) -> std::optional<VarValue> {
      auto it = vars_.find(std::string(name));
      if (it == vars_.end()) return std::nullopt;
      return VarValue{it->second.text, it->second.known};
    };
  }

  void set_var(const std::string& name, const RawWord& value, bool conditional, bool exported) {
    auto it = vars_.find(name);
    if (conditional && it != vars_.end() && (it->second.text != value.text || !it->second.known)) {
      // Two different values on different paths: unknown from here on.
      it->second.known = false;
      it->second.text = std::string(1, kUnknownMark);
      it->second.exported = it->second.exported || exported;
      return;
    }
    Var v{value.text, value.known, exported || (it != vars_.end() && it->second.exported)};
    vars_[name] = v;
  }

  void assignment(TSNode n, bool conditional, bool exported) {
    TSNode name = ts::field(n, "name");
    if (ts_node_is_null(name)) return;
    std::string var(ts::text(name, src_));
    std::uint32_t value_begin = ts_node_end_byte(name) + 1;  // after '='
    std::uint32_t value_end = ts_node_end_byte(n);
    if (value_begin > value_end) value_begin = value_end;
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
      if (ts::type(c) == "variable_assignment") {
        assignment(c, conditional, exported);
      } else if (exported && ts::type(c) == "variable_name") {
        auto it = vars_.find(std::string(ts::text(c, src_)));
        if (it != vars_.end()) it->second.exported = true;
      }
    }
  }

  void command(TSNode n, bool conditional) {
    // tree-sitter-bash 0.23 splits `A=x_$B.c` into an assignment ending at `$` and a command
    // named `B.c`. Words are therefore re-split here from the command's own text.
    std::uint32_t begin = ts_node_start_byte(n), end = ts_node_end_byte(n);
    std::string_view text = src_.substr(begin, end - begin);
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
    std::string_view prog = argv[0].known ? program_basename(argv[0].text) : std::string_view();
    if (prog == "cd") {
      change_dir(argv, conditional);
      return;
    }
    if (prog == "source" || prog == ".") return;
    // Skip wrappers until the launcher itself.
    std::size_t start = 0;
    while (start < argv.size()) {
      std::string_view p = argv[start].known ? program_basename(argv[start].text) : std::string_view();
      if (is_launcher_program(p)) break;
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
        for (std::size_t k = start + 1; k < argv.size(); ++k) joined += (k > start + 1 ? " " : "") + argv[k].text;
        nested(joined, span(begin + argv[start + 1].begin, begin + argv.back().end), command_span, true, prefix);
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
      if (var.exported) fact.env.push_back({name, finish(RawWord{var.text, var.known}, Span{})});
    }
    for (auto& [name, value] : prefix) {
      fact.env.push_back({name, finish(value, fact.span)});
    }
    for (std::size_t k = start; k < argv.size(); ++k) {
      fact.argv.push_back(finish(argv[k], span(begin + argv[k].begin, begin + argv[k].end)));
    }
    fact.cwd = cwd_;
    fact.cwd_known = cwd_known_;
    (void)conditional;
    facts_.commands.push_back(std::move(fact));
  }

  void change_dir(const std::vector<RawWord>& argv, bool conditional) {
    if (argv.size() < 2 || !argv[1].known || conditional) {
      if (argv.size() >= 2) cwd_known_ = false;
      return;
    }
    std::string dir = argv[1].text;
    const std::string marker = "$SCRIPT_DIR$";
    if (dir.rfind(marker, 0) == 0) {
      cwd_.clear();
      cwd_known_ = true;
      dir = dir.substr(marker.size());
      while (!dir.empty() && dir[0] == '/') dir.erase(0, 1);
      if (dir.empty()) return;
    }
    if (!dir.empty() && dir[0] == '/') {
      cwd_known_ = false;  // an absolute path on the user's machine
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
  std::uint32_t base_offset_ = 0;  // see ExtractOptions::base_offset
  std::uint32_t base_line_ = 0;
  std::optional<Span> fixed_;         // nested text: every word points at the string it came from
  std::optional<Span> command_span_;  // nested text: the command that ran it
  int depth_ = 0;
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
  return p == "accelerate" || p == "torchrun" || p == "deepspeed" || p == "trl" || is_python_interpreter(p);
}

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
      if (name == "--gpus-per-node") gpus_per_node = value.substr(value.rfind(':') + 1);
      if (name == "--ntasks-per-node") tasks_per_node = value;
      if (name == "--gres" && value.rfind("gpu:", 0) == 0) gres_gpus = value.substr(value.rfind(':') + 1);
    }
  }
  auto add = [&](const char* var, const std::string& v) {
    if (is_count(v)) out.push_back({var, v, true, true});
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
  Walker walker(text, file, facts);
  for (const auto& v : sbatch_variables(text)) walker.vars_[v.name] = Var{v.value, v.known, v.exported};
  for (const auto& v : options.vars) {
    std::string value = v.value;
    if (!v.known && value.find(kUnknownMark) == std::string::npos) value.push_back(kUnknownMark);
    walker.vars_[v.name] = Var{value, v.known, v.exported};
  }
  walker.cwd_ = options.cwd;
  walker.cwd_known_ = options.cwd_known;
  walker.base_offset_ = options.base_offset;
  walker.base_line_ = options.base_line;
  walker.run(ts_tree_root_node(tree.get()));
  facts.comments = ts::comments(ts_tree_root_node(tree.get()), text, file);
  for (Comment& c : facts.comments) {
    c.span.begin += options.base_offset;
    c.span.end += options.base_offset;
    c.span.start.line += options.base_line;
    c.span.stop.line += options.base_line;
  }
  return facts;
}

}  // namespace trl::shell
