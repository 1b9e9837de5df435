#include "analyzer/make/makefile_extractor.hpp"

#include <algorithm>
#include <cstdint>
#include <map>

#include "analyzer/shell/shell_words.hpp"

namespace trl::make {

namespace {

struct RawVar {
  std::string value;      // as written
  bool recursive = true;  // `=`: expanded on use
  bool known = true;
  bool exported = false;
};

struct Reader {
  std::map<std::string, RawVar> vars;
  bool export_all = false;

  // Expands make references in `s`; unknown when a reference is undefined or a function.
  std::pair<std::string, bool> expand(std::string_view s, int depth = 0) const {
    std::string out;
    bool known = true;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '$' || i + 1 >= s.size()) {
        out.push_back(s[i]);
        continue;
      }
      char n = s[i + 1];
      if (n == '$') {
        out.push_back('$');
        ++i;
        continue;
      }
      std::string name;
      std::size_t next;
      if (n == '(' || n == '{') {
        char close = n == '(' ? ')' : '}';
        std::size_t j = s.find(close, i + 2);
        if (j == std::string_view::npos) return {out, false};
        name = std::string(s.substr(i + 2, j - i - 2));
        next = j;
      } else {
        name = std::string(1, n);
        next = i + 1;
      }
      i = next;
      auto it = vars.find(name);
      if (it == vars.end() || depth > 16 || name.find_first_of(" \t$") != std::string::npos) {
        known = false;  // undefined (may come from the command line), a function, or too deep
        out.push_back(shell::kUnknownMark);
        continue;
      }
      if (!it->second.known) known = false;
      if (it->second.recursive) {
        auto [v, k] = expand(it->second.value, depth + 1);
        out += v;
        known = known && k;
      } else {
        out += it->second.value;
      }
    }
    return {out, known};
  }
};

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return std::string(s.substr(b, e - b));
}

// Logical lines: a backslash-newline joins the next line (make replaces it with a space).
struct LogicalLine {
  std::size_t begin, end;  // byte range in the text, continuation lines included
  std::string joined;
  bool recipe;  // starts with a TAB
};

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

// Reads assignments; calls `recipe(line)` for each recipe line.
template <typename OnRecipe>
Reader read(std::string_view text, OnRecipe recipe) {
  Reader r;
  int cond = 0;
  bool in_define = false;
  bool in_rule = false;
  for (const auto& l : logical_lines(text)) {
    if (l.recipe && in_rule) {
      recipe(l, r);
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
    bool exported = false;
    while (true) {
      if (s.rfind("export ", 0) == 0) {
        exported = true;
        s = trim(s.substr(7));
      } else if (s.rfind("override ", 0) == 0) {
        s = trim(s.substr(9));
      } else {
        break;
      }
    }
    if (s == "export") {
      r.export_all = true;
      continue;
    }
    // NAME op value, op one of = := ::= ?= += !=
    std::size_t eq = s.find('=');
    std::size_t colon = s.find(':');
    if (eq != std::string::npos && (colon == std::string::npos || colon + 1 >= eq)) {
      std::size_t op_begin = eq;
      while (op_begin > 0 &&
             (s[op_begin - 1] == ':' || s[op_begin - 1] == '?' || s[op_begin - 1] == '+' || s[op_begin - 1] == '!'))
        --op_begin;
      std::string name = trim(s.substr(0, op_begin));
      std::string op = s.substr(op_begin, eq - op_begin + 1);
      std::string value = trim(s.substr(eq + 1));
      if (name.empty() || name.find_first_of(" \t") != std::string::npos) {
        in_rule = false;
        continue;
      }
      in_rule = false;
      RawVar& v = r.vars[name];
      const bool existed = !v.value.empty() || !v.known;
      if (op == "?=") {
        if (existed) continue;
        v = RawVar{value, true, cond == 0, exported || v.exported};
      } else if (op == "+=") {
        v.value = existed ? v.value + " " + value : value;
        v.known = v.known && cond == 0;
        v.exported = v.exported || exported;
      } else if (op == "!=") {
        v = RawVar{"", false, false, exported};  // shell assignment: runs code
      } else if (op == "=") {
        v = RawVar{value, true, cond == 0, exported || v.exported};
      } else {  // := ::= :::=
        auto [x, k] = r.expand(value);
        v = RawVar{x, false, k && cond == 0, exported || v.exported};
      }
      continue;
    }
    if (exported) {  // export NAME
      std::string name = trim(s);
      if (auto it = r.vars.find(name); it != r.vars.end()) it->second.exported = true;
      continue;
    }
    // A rule line: `targets: prerequisites [; recipe]`.
    in_rule = colon != std::string::npos;
  }
  return r;
}

}  // namespace

std::vector<MakeVariable> variables(std::string_view text) {
  Reader r = read(text, [](const LogicalLine&, const Reader&) {});
  std::vector<MakeVariable> out;
  for (const auto& [name, v] : r.vars) {
    auto [value, known] = v.recursive ? r.expand(v.value) : std::pair<std::string, bool>{v.value, true};
    known = known && v.known && value.find(shell::kUnknownMark) == std::string::npos;
    std::erase(value, shell::kUnknownMark);
    out.push_back({name, value, known, v.exported || r.export_all});
  }
  return out;
}

shell::ShellFacts extract(std::string_view text, FileId file) {
  // Recipes see the variables as they stand after the whole file is read (make expands
  // recipes when it runs them).
  const auto vars = variables(text);
  std::vector<shell::PredefinedVar> predefined;
  for (const auto& v : vars) {
    // Make pastes the value into the recipe; the shell then removes its quotes.
    auto words = shell::split_words(v.value, [](std::string_view) { return std::optional<shell::VarValue>(); });
    std::string value;
    bool known = v.known;
    for (std::size_t k = 0; k < words.size(); ++k) {
      value += (k ? " " : "") + words[k].text;
      known = known && words[k].known;
    }
    predefined.push_back({v.name, value, known, v.exported, true});
  }
  shell::ShellFacts out;
  std::uint32_t line_no = 0;  // the line of byte `counted_to`
  std::size_t counted_to = 0;
  read(text, [&](const LogicalLine& l, const Reader& reader) {
    // Cheap filter first: only lines that (after make expansion) may start something.
    const std::string body = reader.expand(text.substr(l.begin, l.end - l.begin)).first;
    static constexpr std::string_view words[] = {"accelerate", "torchrun", "deepspeed", "python", "trl",
                                                 "bash",       "sh ",      "eval",      "srun"};
    bool interesting = false;
    for (auto w : words) interesting = interesting || body.find(w) != std::string::npos;
    if (!interesting) return;
    // The recipe line alone (it starts a line): the shell extractor adds its offset and line
    // number to the spans it gives.
    line_no += static_cast<std::uint32_t>(std::count(text.begin() + counted_to, text.begin() + l.begin, '\n'));
    counted_to = l.begin;
    std::string virt(l.end - l.begin, ' ');
    std::size_t i = l.begin;
    std::size_t out_i = i;
    auto put = [&](char ch) { virt[out_i++ - l.begin] = ch; };
    // Leading TAB, then the recipe prefixes @ - +.
    put('\t');
    ++i;
    while (i < l.end && (text[i] == '@' || text[i] == '-' || text[i] == '+' || text[i] == ' ')) ++i;
    std::size_t pad_at = std::string::npos;  // where a `$$` shortened the line
    out_i = i;
    for (; i < l.end; ++i) {
      char c = text[i];
      if (c == '\n') {
        while (out_i < i) put(' ');
        put('\n');
        continue;
      }
      if (c == '$' && i + 1 < l.end && text[i + 1] == '$') {
        put('$');
        ++i;
        pad_at = i;
        continue;
      }
      if (c == '$' && i + 1 < l.end && text[i + 1] == '(') {
        // $(NAME) -> ${NAME}; $(function args) stays a command substitution (unknown).
        std::size_t close = text.find(')', i);
        std::string_view inner =
            close == std::string_view::npos || close > l.end ? std::string_view() : text.substr(i + 2, close - i - 2);
        if (!inner.empty() && inner.find_first_of(" \t$,") == std::string_view::npos) {
          put('$');
          put('{');
          for (char ch : inner) put(ch);
          put('}');
          i = close;
          continue;
        }
      }
      put(c);
    }
    (void)pad_at;
    shell::ExtractOptions options{predefined, "", true};
    options.base_offset = static_cast<std::uint32_t>(l.begin);
    options.base_line = line_no;
    auto facts = shell::extract(virt, file, options);
    for (auto& c : facts.commands) out.commands.push_back(std::move(c));
    for (auto& c : facts.created) out.created.push_back(std::move(c));
  });
  return out;
}

}  // namespace trl::make
