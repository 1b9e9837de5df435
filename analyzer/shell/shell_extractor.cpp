#include "analyzer/shell/shell_extractor.hpp"

#include <map>
#include <optional>

#include "analyzer/parse/tree_sitter.hpp"
#include "analyzer/shell/shell_words.hpp"

namespace trl::shell {

namespace {

std::string_view basename(std::string_view p) {
  auto slash = p.rfind('/');
  return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

bool is_python(std::string_view name) {
  if (name.rfind("python", 0) != 0) return false;
  for (char c : name.substr(6))
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return false;
  return true;
}

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
    return Point{line, offset - line_starts_[line]};
  }
  Span span(std::uint32_t b, std::uint32_t e) const { return Span{file_, b, e, point(b), point(e)}; }

  VarLookup lookup() {
    return [this](std::string_view name) -> std::optional<VarValue> {
      auto it = vars_.find(std::string(name));
      if (it == vars_.end()) return std::nullopt;
      return VarValue{it->second.text, it->second.known};
    };
  }

  void set_var(const std::string& name, RawWord value, bool conditional, bool exported) {
    auto it = vars_.find(name);
    if (conditional && it != vars_.end() && (it->second.text != value.text || !it->second.known)) {
      // Two different values on different paths: unknown from here on.
      it->second.known = false;
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
      set_var(var, RawWord{"", false}, conditional, exported);
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
    std::vector<RawWord> argv(words.begin() + static_cast<std::ptrdiff_t>(i), words.end());
    std::string_view prog = argv[0].known ? basename(argv[0].text) : std::string_view();
    if (prog == "cd") {
      change_dir(argv, conditional);
      return;
    }
    if (prog == "source" || prog == ".") return;
    // Skip wrappers until the launcher itself.
    std::size_t start = 0;
    while (start < argv.size()) {
      std::string_view p = argv[start].known ? basename(argv[start].text) : std::string_view();
      if (is_launcher_program(p)) break;
      if (start == 0 && !is_wrapper(p)) return;
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
    fact.span = span(begin, end);
    for (const auto& [name, var] : vars_) {
      if (var.exported) fact.env.push_back({name, Word{var.text, var.known, Span{}}});
    }
    for (auto& [name, value] : prefix) {
      fact.env.push_back({name, Word{value.text, value.known, fact.span}});
    }
    for (std::size_t k = start; k < argv.size(); ++k) {
      fact.argv.push_back(Word{argv[k].text, argv[k].known, span(begin + argv[k].begin, begin + argv[k].end)});
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

  std::string_view src_;
  FileId file_;
  ShellFacts& facts_;
  std::vector<std::uint32_t> line_starts_;
  std::map<std::string, Var> vars_;
  std::string cwd_;
  bool cwd_known_ = true;
};

}  // namespace

bool is_launcher_program(std::string_view p) {
  return p == "accelerate" || p == "torchrun" || p == "deepspeed" || p == "trl" || is_python(p);
}

ShellFacts extract(std::string_view text, FileId file) {
  ShellFacts facts;
  ts::Tree tree = ts::parse(tree_sitter_bash(), text);
  if (!tree) {
    facts.problems.push_back({"TRL903",
                              "shell script could not be parsed within " +
                                  std::to_string(static_cast<int>(ts::kParseCpuBudgetSeconds)) +
                                  " s of CPU time; file skipped",
                              Span{file}});
    return facts;
  }
  Walker walker(text, file, facts);
  walker.run(ts_tree_root_node(tree.get()));
  return facts;
}

}  // namespace trl::shell
