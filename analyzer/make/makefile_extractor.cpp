#include "analyzer/make/makefile_extractor.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "analyzer/shell/shell_words.hpp"

namespace trl::make {

namespace {

struct RawVar {
  std::string value;      // as written (`=`), or expanded (`:=`)
  bool recursive = true;  // `=`: expanded on use
  bool known = true;
  bool exported = false;
};

// Logical lines: a backslash-newline joins the next line (make replaces it with a space).
struct LogicalLine {
  std::size_t begin, end;  // byte range in the text, continuation lines included
  std::string joined;
  bool recipe;  // starts with a TAB
};

struct Recipe {
  std::vector<std::string> targets;  // empty when a target name is not known
  std::vector<LogicalLine> lines;
};

// A value longer than this (after expansion) is unknown: `V0 = $(V1) $(V1)` nested twenty deep
// would otherwise take make's own exponential time and memory.
constexpr std::size_t kMaxValue = 1 << 16;

struct Reader {
  std::map<std::string, RawVar> vars;
  bool export_all = false;
  bool oneshell = false;
  std::map<std::string, std::map<std::string, RawVar>> target_vars;  // `train: ACC = x`
  std::set<std::string> anywhere_vars;  // target-specific for a pattern or an unknown target
  std::map<std::string, std::vector<std::string>> prerequisites;
  bool prerequisites_unknown = false;
  std::vector<Recipe> recipes;
};

// One expansion context: the global variables, the recipe's target-specific ones, and the
// values already expanded (each variable once).
class Expander {
 public:
  Expander(const Reader& r, const std::map<std::string, RawVar>* local = nullptr) : r_(r), local_(local) {}

  // Expands make references in `s`. With `offsets`, records for each output byte the offset in
  // `s` it came from (a reference's value: the reference's start).
  std::pair<std::string, bool> expand(std::string_view s, std::vector<std::uint32_t>* offsets = nullptr,
                                      int depth = 0) {
    std::string out;
    bool known = true;
    const std::size_t offsets_before = offsets ? offsets->size() : 0;
    auto put = [&](char c, std::size_t at) {
      out.push_back(c);
      if (offsets) offsets->push_back(static_cast<std::uint32_t>(at));
    };
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (out.size() > kMaxValue) {
        if (offsets) {
          offsets->resize(offsets_before);
          offsets->push_back(0);
        }
        return {std::string(1, shell::kUnknownMark), false};
      }
      if (s[i] != '$' || i + 1 >= s.size()) {
        put(s[i], i);
        continue;
      }
      const std::size_t at = i;
      char n = s[i + 1];
      if (n == '$') {
        put('$', at);
        ++i;
        continue;
      }
      std::string name;
      bool plain = true;
      if (n == '(' || n == '{') {
        const char open = n, close = n == '(' ? ')' : '}';
        int level = 0;
        std::size_t j = i + 1;
        for (; j < s.size(); ++j) {
          if (s[j] == open) ++level;
          if (s[j] == close && --level == 0) break;
        }
        if (j >= s.size()) {
          put(shell::kUnknownMark, at);
          return {out, false};
        }
        name = std::string(s.substr(i + 2, j - i - 2));
        // A function (`$(shell nproc)`), a substitution reference (`$(V:.c=.o)`) or a computed
        // name (`$($(X))`).
        plain = !name.empty() && name.find_first_of(" \t$,:=") == std::string::npos;
        i = j;
      } else {
        name = std::string(1, n);
        i = i + 1;
      }
      auto [value, k] = plain ? lookup(name, depth) : std::pair<std::string, bool>{"", false};
      if (!k && value.find(shell::kUnknownMark) == std::string::npos) value.push_back(shell::kUnknownMark);
      for (char c : value) put(c, at);
      known = known && k;
    }
    return {out, known};
  }

 private:
  std::pair<std::string, bool> lookup(const std::string& name, int depth) {
    if (auto m = memo_.find(name); m != memo_.end()) return m->second;
    const RawVar* v = nullptr;
    if (local_)
      if (auto it = local_->find(name); it != local_->end()) v = &it->second;
    if (!v)
      if (auto it = r_.vars.find(name); it != r_.vars.end()) v = &it->second;
    // Undefined (the command line or the environment may set it), or too deep.
    if (!v || depth > 16 || !v->known) return {"", false};
    if (!v->recursive) return {v->value, v->value.find(shell::kUnknownMark) == std::string::npos};
    if (!in_progress_.insert(name).second) return {"", false};  // `X = $(X)`: make refuses it
    auto result = expand(v->value, nullptr, depth + 1);
    in_progress_.erase(name);
    if (result.first.size() > kMaxValue) result = {"", false};
    memo_[name] = result;
    return result;
  }

  const Reader& r_;
  const std::map<std::string, RawVar>* local_;
  std::map<std::string, std::pair<std::string, bool>> memo_;
  std::set<std::string> in_progress_;
};

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> split_blanks(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::vector<LogicalLine> logical_lines(std::string_view t) {
  std::vector<LogicalLine> out;
  std::size_t pos = 0;
  while (pos < t.size()) {
    LogicalLine l{pos, pos, "", pos < t.size() && t[pos] == '\t'};
    while (true) {
      std::size_t nl = t.find('\n', pos);
      std::size_t e = nl == std::string_view::npos ? t.size() : nl;
      std::string_view phys = t.substr(pos, e - pos);
      if (!phys.empty() && phys.back() == '\r') phys.remove_suffix(1);
      bool cont = !phys.empty() && phys.back() == '\\';
      if (!l.joined.empty()) l.joined.push_back(' ');
      l.joined += cont ? std::string(phys.substr(0, phys.size() - 1)) : std::string(phys);
      l.end = e;
      pos = nl == std::string_view::npos ? t.size() : nl + 1;
      if (!cont || pos >= t.size()) break;
    }
    out.push_back(std::move(l));
  }
  return out;
}

// A variable's value as make reads it from the text after the operator: an unescaped `#` starts
// a comment to the end of the line, except inside a variable reference or function call
// (`$(subst a,#,x)`, `${A#}`). Backslashes before a `#` are halved: an odd number escapes it
// (`\#` is `#`), an even number leaves a backslash before the comment (`\\#`). The whitespace
// before a comment is kept, as make keeps it (GNU make manual, 6.2: `dir := /foo/bar    # ...`
// holds four trailing spaces); without a comment, the value is trimmed as before.
std::string value_text(std::string_view v) {
  std::string out;
  int depth = 0;
  bool comment = false;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    if (c == '$' && i + 1 < v.size() && (v[i + 1] == '(' || v[i + 1] == '{')) {
      ++depth;
      out += v.substr(i, 2);
      ++i;
      continue;
    }
    if (depth > 0 && (c == ')' || c == '}')) --depth;
    if (depth > 0 && (c == '(' || c == '{')) ++depth;
    if (c != '#' || depth > 0) {
      out.push_back(c);
      continue;
    }
    std::size_t backslashes = 0;
    while (backslashes < out.size() && out[out.size() - 1 - backslashes] == '\\') ++backslashes;
    out.resize(out.size() - (backslashes + 1) / 2);
    if (backslashes % 2 == 1) {
      out.push_back('#');
      continue;
    }
    comment = true;
    break;
  }
  if (!comment) return trim(out);
  std::size_t b = 0;
  while (b < out.size() && (out[b] == ' ' || out[b] == '\t')) ++b;
  return out.substr(b);
}

// `NAME op value` (after `export`/`override`): the name, the operator (= := ::= :::= ?= += !=)
// and the value; nullopt when `s` is not an assignment.
struct Assignment {
  std::string name, op, value;
  bool exported = false;
};
std::optional<Assignment> assignment(std::string s) {
  Assignment a;
  while (true) {
    if (s.rfind("export ", 0) == 0) {
      a.exported = true;
      s = trim(s.substr(7));
    } else if (s.rfind("override ", 0) == 0) {
      s = trim(s.substr(9));
    } else {
      break;
    }
  }
  std::size_t eq = s.find('=');
  if (eq == std::string::npos) return std::nullopt;
  std::size_t op_begin = eq;
  while (op_begin > 0 &&
         (s[op_begin - 1] == ':' || s[op_begin - 1] == '?' || s[op_begin - 1] == '+' || s[op_begin - 1] == '!'))
    --op_begin;
  a.name = trim(s.substr(0, op_begin));
  a.op = s.substr(op_begin, eq - op_begin + 1);
  a.value = value_text(std::string_view(s).substr(eq + 1));
  if (a.name.empty() || a.name.find_first_of(" \t:") != std::string::npos) return std::nullopt;
  return a;
}

void assign(Reader& r, std::map<std::string, RawVar>& vars, const Assignment& a, bool certain) {
  RawVar& v = vars[a.name];
  const bool existed = !v.value.empty() || !v.known;
  if (a.op == "?=") {
    if (existed) return;
    v = RawVar{a.value, true, certain, a.exported || v.exported};
  } else if (a.op == "+=") {
    v.value = existed ? v.value + " " + a.value : a.value;
    v.known = v.known && certain;
    v.exported = v.exported || a.exported;
    if (!v.recursive) {  // appending to a simple variable expands the new text now
      auto [x, k] = Expander(r).expand(v.value);
      v.value = x;
      v.known = v.known && k;
    }
  } else if (a.op == "!=") {
    v = RawVar{"", false, false, a.exported};  // shell assignment: runs code
  } else if (a.op == "=") {
    v = RawVar{a.value, true, certain, a.exported || v.exported};
  } else {  // := ::= :::=
    auto [x, k] = Expander(r).expand(a.value);
    v = RawVar{x, false, k && certain, a.exported || v.exported};
  }
}

// Reads assignments, rules and their recipes.
Reader read(std::string_view text) {
  Reader r;
  int cond = 0;
  bool in_define = false;
  std::size_t rule = std::string::npos;  // the rule whose recipe lines follow (in r.recipes), or npos
  for (const auto& l : logical_lines(text)) {
    if (l.recipe && rule != std::string::npos) {
      r.recipes[rule].lines.push_back(l);
      continue;
    }
    std::string s = trim(l.joined);
    if (in_define) {
      if (s == "endef") in_define = false;
      continue;
    }
    if (s.empty() || s[0] == '#') continue;
    auto word = s.substr(0, s.find_first_of(" \t("));
    if (word == "ifeq" || word == "ifneq" || word == "ifdef" || word == "ifndef") {
      ++cond;
      continue;
    }
    if (word == "endif") {
      if (cond > 0) --cond;
      continue;
    }
    if (word == "else") continue;
    if (word == "define") {
      in_define = true;
      continue;
    }
    if (word == "include" || word == "-include" || word == "sinclude" || word == "unexport") continue;
    if (s == "export") {
      r.export_all = true;
      continue;
    }
    // A rule's colon: the first `:` that is not part of an assignment operator (`:=`, `::=`).
    std::size_t eq = s.find('=');
    std::size_t colon = s.find(':');
    std::size_t op_begin = eq;
    while (op_begin != std::string::npos && op_begin > 0 &&
           (s[op_begin - 1] == ':' || s[op_begin - 1] == '?' || s[op_begin - 1] == '+' || s[op_begin - 1] == '!'))
      --op_begin;
    if (eq != std::string::npos && (colon == std::string::npos || colon > eq || colon >= op_begin)) {
      rule = std::string::npos;
      if (auto a = assignment(s)) assign(r, r.vars, *a, cond == 0);
      continue;
    }
    if (colon == std::string::npos) {
      if (s.rfind("export ", 0) == 0) {  // export NAME
        std::string name = trim(s.substr(7));
        if (auto it = r.vars.find(name); it != r.vars.end()) it->second.exported = true;
      }
      continue;
    }
    // A rule line: `targets: prerequisites [; recipe]`, or `targets: NAME = value` (target-specific).
    auto [targets_text, targets_known] = Expander(r).expand(s.substr(0, colon));
    std::vector<std::string> targets = split_blanks(targets_text);
    for (const auto& t : targets)
      if (t.find('%') != std::string::npos) targets_known = false;
    std::string rest = s.substr(colon + 1);
    if (!rest.empty() && rest[0] == ':') rest.erase(0, 1);  // `::` rules
    if (auto a = assignment(trim(rest))) {
      rule = std::string::npos;
      // `=` and `:=` are followed; any other operator makes the variable unknown in recipes.
      const bool followed = (a->op == "=" || a->op == ":=" || a->op == "::=") && cond == 0 && targets_known;
      if (!targets_known) {
        r.anywhere_vars.insert(a->name);
        continue;
      }
      for (const auto& t : targets) {
        if (followed)
          assign(r, r.target_vars[t], *a, true);
        else
          r.target_vars[t][a->name] = RawVar{"", false, false, false};
      }
      continue;
    }
    if (targets_known && targets.size() == 1 && targets[0] == ".ONESHELL") r.oneshell = true;
    std::string prereq_text = rest.substr(0, rest.find(';'));
    auto [prereqs, prereqs_known] = Expander(r).expand(prereq_text);
    if (!prereqs_known || !targets_known) r.prerequisites_unknown = true;
    for (const auto& t : targets)
      for (const auto& p : split_blanks(prereqs))
        if (p != "|") r.prerequisites[t].push_back(p);
    r.recipes.push_back(Recipe{targets_known ? targets : std::vector<std::string>{}, {}});
    rule = r.recipes.size() - 1;
  }
  return r;
}

// The target-specific values a recipe of `targets` sees: its own, and unknown for a variable
// another target sets when this one may be built as that target's prerequisite (make hands
// target-specific values down to prerequisites).
// `reach`: for each target setting a variable, the targets it may build (and whether too many).
using Reach = std::map<std::string, std::pair<std::set<std::string>, bool>>;
std::map<std::string, RawVar> recipe_locals(const Reader& r, const std::vector<std::string>& targets, Reach& reach) {
  std::map<std::string, RawVar> out;
  const RawVar unknown{"", false, false, false};
  for (const auto& name : r.anywhere_vars) out[name] = unknown;
  if (r.target_vars.empty()) return out;
  std::set<std::string> names;
  for (const auto& [t, vars] : r.target_vars)
    for (const auto& [name, v] : vars) names.insert(name);
  // The targets that may have this recipe's targets among their prerequisites.
  auto builds = [&](const std::string& from, const std::string& to) {
    if (r.prerequisites_unknown) return true;
    auto [at, fresh] = reach.try_emplace(from);
    if (fresh) {
      // Every target `from` may build; past 10,000 of them: any (unknown).
      std::set<std::string>& seen = at->second.first;
      std::vector<std::string> todo{from};
      while (!todo.empty() && !at->second.second) {
        std::string t = todo.back();
        todo.pop_back();
        auto it = r.prerequisites.find(t);
        if (it == r.prerequisites.end()) continue;
        for (const auto& p : it->second)
          if (seen.insert(p).second) todo.push_back(p);
        at->second.second = seen.size() > 10000;
      }
    }
    return at->second.second || at->second.first.count(to) > 0;
  };
  for (const auto& name : names) {
    if (out.count(name)) continue;
    std::optional<RawVar> value;
    bool differs = targets.empty(), global = false;
    for (const auto& t : targets) {
      const RawVar* own = nullptr;
      if (auto it = r.target_vars.find(t); it != r.target_vars.end())
        if (auto v = it->second.find(name); v != it->second.end()) own = &v->second;
      if (!own) {
        global = true;
        continue;
      }
      if (value && (value->value != own->value || value->recursive != own->recursive)) differs = true;
      value = *own;
    }
    if (value && global) differs = true;
    for (const auto& [u, vars] : r.target_vars)
      if (vars.count(name) && std::find(targets.begin(), targets.end(), u) == targets.end())
        for (const auto& t : targets) differs = differs || builds(u, t);
    if (differs)
      out[name] = unknown;
    else if (value)
      out[name] = *value;
  }
  return out;
}

}  // namespace

std::vector<MakeVariable> variables(std::string_view text) {
  Reader r = read(text);
  Expander ex(r);
  std::vector<MakeVariable> out;
  for (const auto& [name, v] : r.vars) {
    auto [value, known] = v.recursive ? ex.expand(v.value) : std::pair<std::string, bool>{v.value, true};
    known = known && v.known && value.find(shell::kUnknownMark) == std::string::npos;
    std::erase(value, shell::kUnknownMark);
    out.push_back({name, value, known, v.exported || r.export_all});
  }
  return out;
}

shell::ShellFacts extract(std::string_view text, FileId file) {
  const Reader reader = read(text);
  // Recipes are expanded when make runs them, with the variables as they stand after the whole
  // file is read. Make pastes a variable's value into the recipe text; the shell sees only the
  // exported variables (and the environment's) as its own.
  std::vector<shell::PredefinedVar> exported;
  for (const auto& v : variables(text))
    if (v.exported) exported.push_back({v.name, v.value, v.known, true, false});
  shell::ShellFacts out;
  std::uint32_t line_no = 0;  // the line of byte `counted_to`
  std::size_t counted_to = 0;
  Expander global(reader);
  // One shell per recipe line, or per recipe with .ONESHELL.
  auto run = [&](const std::vector<const LogicalLine*>& lines, Expander& ex) {
    if (lines.empty()) return;
    const std::size_t base = lines.front()->begin, last = lines.back()->end;
    std::string shell_text;
    std::vector<std::uint32_t> offsets;
    for (const LogicalLine* l : lines) {
      if (!shell_text.empty()) {
        shell_text.push_back('\n');
        offsets.push_back(static_cast<std::uint32_t>(l->begin - 1 - base));
      }
      // The leading TAB, then the recipe prefixes @ - +.
      std::size_t i = l->begin + 1;
      while (i < l->end && (text[i] == '@' || text[i] == '-' || text[i] == '+' || text[i] == ' ' || text[i] == '\t'))
        ++i;
      std::vector<std::uint32_t> at;
      auto [expanded, known] = ex.expand(text.substr(i, l->end - i), &at);
      (void)known;  // unknown parts are marked in the text
      for (std::size_t k = 0; k < expanded.size(); ++k) {
        shell_text.push_back(expanded[k]);
        offsets.push_back(static_cast<std::uint32_t>(i + at[k] - base));
      }
    }
    offsets.push_back(static_cast<std::uint32_t>(last - base));
    // Cheap filter first: only text that may start something.
    static constexpr std::string_view words[] = {"accelerate", "torchrun", "deepspeed", "python", "trl",
                                                 "bash",       "sh ",      "eval",      "srun"};
    bool interesting = false;
    for (auto w : words) interesting = interesting || shell_text.find(w) != std::string::npos;
    if (!interesting) return;
    line_no += static_cast<std::uint32_t>(std::count(text.begin() + counted_to, text.begin() + base, '\n'));
    counted_to = base;
    shell::ExtractOptions options{exported, "", true};
    options.base_offset = static_cast<std::uint32_t>(base);
    options.base_line = line_no;
    options.line_layout = text.substr(base, last - base);
    options.offsets = std::move(offsets);
    auto facts = shell::extract(shell_text, file, options);
    for (auto& c : facts.commands) out.commands.push_back(std::move(c));
    for (auto& c : facts.created) out.created.push_back(std::move(c));
  };
  Reach reach;
  for (const Recipe& recipe : reader.recipes) {
    std::map<std::string, RawVar> locals = recipe_locals(reader, recipe.targets, reach);
    Expander own(reader, &locals);
    Expander& ex = locals.empty() ? global : own;
    if (reader.oneshell) {
      std::vector<const LogicalLine*> all;
      for (const auto& l : recipe.lines) all.push_back(&l);
      run(all, ex);
    } else {
      for (const auto& l : recipe.lines) run({&l}, ex);
    }
  }
  return out;
}

}  // namespace trl::make
