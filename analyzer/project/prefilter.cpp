// The pre-filter's second look at the Python modules whose only training-related names import
// tokenizer classes from transformers (prefilter.hpp): which import statements leave a module
// TokenizerOnly, the words of a module's import statements, and the modules whose imports lead
// to a kept module after all.
#include "analyzer/project/prefilter.hpp"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

namespace trl {

namespace {

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\f';
}
// ASCII letters, digits and `_`, and any byte of a UTF-8 sequence (Python identifiers may be
// non-ASCII).
bool ident_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '_' || u >= 0x80;
}
bool ident_start(char c) {
  return ident_char(c) && !std::isdigit(static_cast<unsigned char>(c));
}

std::size_t ident_end(std::string_view t, std::size_t i) {
  while (i < t.size() && ident_char(t[i])) ++i;
  return i;
}

bool inert_name(std::string_view name) {
  const auto& names = inert_transformers_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// When the `transformers` at byte `at` is the module of `from transformers[.sub] import A, B`
// (or a parenthesised list, `as` aliases allowed) that starts a line and imports only inert
// names, the offset of the end of that line (or of the comment that ends it); else 0. Anything
// else (a `;` after it, `*`, another name, `transformers` inside another word) is 0: the module
// then matters.
std::size_t inert_import_end(std::string_view t, std::size_t at) {
  constexpr std::string_view kModule = "transformers";
  const std::size_t n = t.size();
  if (t.substr(at, kModule.size()) != kModule) return 0;
  // Before it: the start of a line, indentation, `from`, blanks.
  std::size_t b = at;
  if (b == 0 || !blank(t[b - 1])) return 0;
  while (b > 0 && blank(t[b - 1])) --b;
  if (b < 4 || t.substr(b - 4, 4) != "from") return 0;
  b -= 4;
  while (b > 0 && blank(t[b - 1])) --b;
  if (b > 0 && t[b - 1] != '\n' && t[b - 1] != '\r') return 0;
  // After it: submodules, blanks, `import`.
  std::size_t i = at + kModule.size();
  while (i < n && t[i] == '.') {
    const std::size_t e = ident_end(t, i + 1);
    if (e == i + 1) return 0;
    i = e;
  }
  if (i < n && ident_char(t[i])) return 0;  // `transformers_x`
  const std::size_t before_import = i;
  while (i < n && blank(t[i])) ++i;
  if (i == before_import || t.substr(i, 6) != "import") return 0;
  i += 6;
  const bool paren = [&] {
    std::size_t j = i;
    while (j < n && blank(t[j])) ++j;
    if (j < n && t[j] == '(') {
      i = j + 1;
      return true;
    }
    return false;
  }();
  if (!paren && (i >= n || !blank(t[i]))) return 0;  // `importX`
  // Blanks between names; inside the parentheses also line ends and comments (a comment with a
  // name of python_may_matter, `# noqa` say, makes the module matter), outside them continued
  // lines.
  bool named_in_comment = false;
  auto skip_space = [&] {
    for (;;) {
      if (i < n && blank(t[i])) {
        ++i;
      } else if (paren && i < n && (t[i] == '\n' || t[i] == '\r')) {
        ++i;
      } else if (paren && i < n && t[i] == '#') {
        const std::size_t e = std::min(t.find_first_of("\r\n", i), n);
        if (find_training_name(t.substr(0, e), i) < e) named_in_comment = true;
        i = e;
      } else if (!paren && i + 1 < n && t[i] == '\\' && (t[i + 1] == '\n' || t[i + 1] == '\r')) {
        i += t[i + 1] == '\r' && i + 2 < n && t[i + 2] == '\n' ? 3 : 2;
      } else {
        return;
      }
    }
  };
  for (;;) {
    skip_space();
    if (paren && i < n && t[i] == ')') break;  // after a trailing comma
    const std::size_t e = ident_end(t, i);
    if (e == i || !ident_start(t[i]) || !inert_name(t.substr(i, e - i))) return 0;
    i = e;
    skip_space();
    if (t.substr(i, 2) == "as" && (i + 2 >= n || !ident_char(t[i + 2]))) {
      i += 2;
      skip_space();
      const std::size_t alias_end = ident_end(t, i);
      if (alias_end == i || !ident_start(t[i])) return 0;
      i = alias_end;
      skip_space();
    }
    if (i < n && t[i] == ',') {
      ++i;
      continue;
    }
    break;
  }
  if (named_in_comment) return 0;
  if (paren) {
    if (i >= n || t[i] != ')') return 0;
    ++i;
  }
  while (i < n && blank(t[i])) ++i;
  if (i < n && t[i] == '#') return i;  // the search for names goes on in the comment
  if (i < n && t[i] != '\n' && t[i] != '\r') return 0;
  return i;
}

// Skips the string literal whose opening quote is at `i`; false when it does not end (at the end
// of its line for a one-line string, at the end of the text for a triple-quoted one).
bool skip_string(std::string_view t, std::size_t& i) {
  const std::size_t n = t.size();
  const char q = t[i];
  const bool triple = i + 2 < n && t[i + 1] == q && t[i + 2] == q;
  i += triple ? 3 : 1;
  while (i < n) {
    const char c = t[i];
    if (c == '\\') {  // an escape, a quote kept in a raw string, or a continued line (`\r\n` too)
      i += i + 2 < n && t[i + 1] == '\r' && t[i + 2] == '\n' ? 3 : 2;
      continue;
    }
    if (c == q && (!triple || (i + 2 < n && t[i + 1] == q && t[i + 2] == q))) {
      i += triple ? 3 : 1;
      return true;
    }
    if ((c == '\n' || c == '\r') && !triple) return false;
    ++i;
  }
  i = n;
  return false;
}

// r, b, u, f, t and their two-letter combinations, in any case.
bool string_prefix(std::string_view w) {
  if (w.empty() || w.size() > 2) return false;
  const char lower[2] = {static_cast<char>(w[0] | 0x20), static_cast<char>(w.size() == 2 ? w[1] | 0x20 : 0)};
  const std::string_view l(lower, w.size());
  for (std::string_view p : {"r", "u", "b", "f", "t", "br", "rb", "fr", "rf", "tr", "rt"})
    if (l == p) return true;
  return false;
}

// Calls `fn` with every run of identifier characters of `text` (non-ASCII bytes included).
template <class Fn>
void for_each_identifier(std::string_view text, Fn fn) {
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !ident_char(text[i])) ++i;
    const std::size_t b = i;
    i = ident_end(text, i);
    if (i > b) fn(text.substr(b, i - b));
  }
}

}  // namespace

const std::vector<std::string_view>& inert_transformers_names() {
  // Tokenizer classes: no class of rules/knowledge, no rename, and the evaluator's model loads
  // leave out every name with `Tokenizer` in it (eval/models/pretrained_models.cpp). A test checks
  // them against the knowledge.
  static const std::vector<std::string_view> names = {"AutoTokenizer", "PreTrainedTokenizer", "PreTrainedTokenizerBase",
                                                      "PreTrainedTokenizerFast"};
  return names;
}

PythonRelevance python_relevance(std::string_view text) {
  std::size_t at = find_training_name(text, 0);
  if (at >= text.size()) return PythonRelevance::Unrelated;
  while (at < text.size()) {
    const std::size_t end = inert_import_end(text, at);
    if (end == 0) return PythonRelevance::Matters;
    at = find_training_name(text, end);
  }
  // A module that may name a JSON configuration (load_referenced_json reads the ones parsed
  // modules name) is parsed, as it was before it could be TokenizerOnly.
  if (text.find(".json") != std::string_view::npos) return PythonRelevance::Matters;
  return PythonRelevance::TokenizerOnly;
}

bool python_import_words(std::string_view t, const ImportWordFn& fn) {
  const std::size_t n = t.size();
  std::size_t i = 0;
  int depth = 0;
  bool at_start = true;  // at the start of a statement
  // Where in an import statement the scan is: the names of `import a.b, c`, the module of
  // `from m import x` or its names.
  enum class Part { None, ImportNames, FromModule, FromNames } part = Part::None;
  bool expect_bind = false;  // the next word is a name the statement binds (after `import` or `,`)
  bool after_as = false;     // the next word is an alias
  bool last_from = false;    // the word before was an import statement's `from`
  auto end_statement = [&] {
    at_start = true;
    part = Part::None;
  };
  while (i < n) {
    const char c = t[i];
    if (c != '.' && !blank(c) && c != '\\' && !ident_start(c)) last_from = false;
    if (blank(c) || (c == '\r' && i + 1 < n && t[i + 1] == '\n')) {
      ++i;
    } else if (c == '#') {
      while (i < n && t[i] != '\n' && t[i] != '\r') ++i;
    } else if (c == '\\') {  // a continued line
      ++i;
      if (i < n && t[i] == '\r') ++i;
      if (i < n && t[i] == '\n') ++i;
    } else if (c == '\n' || c == '\r' || c == ';' || (c == ':' && depth == 0)) {
      // A line end (`\n`, `\r\n` or a lone `\r`) outside brackets, `;` and the `:` of a compound
      // statement (`if x: import y`) end a statement; an annotation's `:` only makes the next
      // word looked at.
      ++i;
      if (depth == 0) end_statement();
    } else if (c == '"' || c == '\'') {
      if (!skip_string(t, i)) return false;
      at_start = false;
    } else if (ident_start(c)) {
      const std::size_t b = i;
      i = ident_end(t, i);
      const std::string_view w = t.substr(b, i - b);
      if (i < n && (t[i] == '"' || t[i] == '\'') && string_prefix(w)) {
        if (!skip_string(t, i)) return false;
        at_start = false;
        continue;
      }
      const bool starts = at_start && (w == "import" || w == "from");
      at_start = false;
      last_from = false;
      if (starts) {
        part = w == "import" ? Part::ImportNames : Part::FromModule;
        expect_bind = w == "import";
        after_as = false;
        last_from = w == "from";
        fn(w, false);
      } else if (part == Part::FromModule && w == "import") {
        part = Part::FromNames;
        expect_bind = true;
        fn(w, false);
      } else if (part != Part::None && w == "as") {
        after_as = true;
        fn(w, false);
      } else if (part != Part::None) {
        fn(w, expect_bind && !after_as);
        expect_bind = false;
        after_as = false;
      }
    } else if (c == '.' && last_from) {
      // The dots of a relative import (`from . import x`, `from ..pkg import y`), one word.
      const std::size_t b = i;
      while (i < n && t[i] == '.') ++i;
      fn(t.substr(b, i - b), false);
      last_from = false;
    } else {
      if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if (c == ')' || c == ']' || c == '}') {
        if (--depth < 0) return false;
      } else if (c == ',' && (part == Part::ImportNames || part == Part::FromNames)) {
        expect_bind = true;
        after_as = false;
      }
      at_start = false;
      ++i;
    }
  }
  return depth == 0;
}

ProjectFolders::ProjectFolders(const Project& project) {
  // The Python files by folder (files come folder by folder, but a folder's files need not be
  // contiguous when several paths were given).
  std::unordered_map<std::string_view, std::size_t> index;
  std::vector<std::string_view> dirs;
  for (FileId id = 0; id < project.sources.size(); ++id) {
    const SourceFile& f = project.sources.get(id);
    if (f.kind != FileKind::Python) continue;
    const std::string_view path = f.abs_path;
    const std::size_t slash = path.rfind('/');
    if (slash == std::string_view::npos || slash == 0) continue;
    auto [it, added] = index.try_emplace(path.substr(0, slash), dirs.size());
    if (added) {
      dirs.push_back(it->first);
      dir_files_.emplace_back();
    }
    dir_files_[it->second].push_back(id);
  }
  if (dirs.empty()) return;
  // Their deepest common folder with the project root: the names of it and of its ancestors
  // are no package any module can import by (the evaluator looks for modules in the importing
  // file's folder, the project root and its `src`, all at or below it).
  std::string_view common = project.root;
  while (common.size() > 1 && common.back() == '/') common.remove_suffix(1);
  if (common.empty() || common == "/") common = dirs.front();
  for (std::string_view d : dirs) {
    std::size_t k = 0;
    while (k < common.size() && k < d.size() && common[k] == d[k]) ++k;
    if (k < common.size() || (k < d.size() && d[k] != '/')) {
      // Cut back to a whole folder of both.
      while (k > 0 && !((k == common.size() || common[k] == '/') && (k == d.size() || d[k] == '/'))) --k;
      common = common.substr(0, k);
    }
  }
  const std::size_t below = common.size() + 1;  // where the first name below it starts
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    const std::string_view dir = dirs[i];
    for (std::size_t end = dir.size(); end > below;) {
      const std::size_t start = dir.rfind('/', end - 1);
      const std::size_t name_at = start == std::string_view::npos ? 0 : start + 1;
      if (name_at < below) break;
      if (end > name_at) name_dirs_[std::string(dir.substr(name_at, end - name_at))].push_back(i);
      if (start == std::string_view::npos) break;
      end = start;
    }
  }
}

const std::vector<FileId>& ProjectFolders::python_files_under(std::string_view name) const {
  static const std::vector<FileId> none;
  auto dirs = name_dirs_.find(std::string(name));
  if (dirs == name_dirs_.end()) return none;
  auto [it, inserted] = files_.try_emplace(dirs->first);
  if (inserted) {
    for (std::size_t d : dirs->second) it->second.insert(it->second.end(), dir_files_[d].begin(), dir_files_[d].end());
    std::sort(it->second.begin(), it->second.end());
    it->second.erase(std::unique(it->second.begin(), it->second.end()), it->second.end());
  }
  return it->second;
}

std::string package_init(std::string_view file, std::size_t dots) {
  std::string_view folder = file;  // one level up per dot
  for (std::size_t up = 0; up < dots; ++up) {
    const std::size_t slash = folder.rfind('/');
    folder = folder.substr(0, slash == std::string_view::npos ? 0 : slash);
  }
  return folder.empty() ? std::string() : std::string(folder) + "/__init__.py";
}

void resolve_conditional(Project& project, const LoadOptions& options, std::optional<ProjectFolders>& folder_index) {
  const std::size_t n = project.sources.size();
  std::vector<FileId> level;
  for (FileId id = 0; id < n; ++id)
    if (python_deferred(project, id) && project.facts[id].conditional) level.push_back(id);
  if (level.empty()) return;
  std::unordered_map<std::string_view, std::vector<FileId>> by_name;
  for (FileId id = 0; id < n; ++id)
    if (project.sources.get(id).kind == FileKind::Python)
      if (std::string_view name = python_reach_name(project.sources.get(id).abs_path); !name.empty())
        by_name[name].push_back(id);
  if (!folder_index) folder_index.emplace(project);
  const ProjectFolders& folders = *folder_index;
  auto kept = [&](FileId id) {
    return project.facts[id].loaded && !python_deferred(project, id) &&
           project.sources.get(id).kind == FileKind::Python;
  };
  // A graph of the modules the TokenizerOnly ones lead to. Nodes [0, n) are files; a word an
  // import names gets one node of its own (the files whose name it is), and a word it binds
  // another (the files under folders of that name), so that a word many modules import costs
  // its files once. importers[node]: the nodes that lead to it.
  std::unordered_map<std::size_t, std::vector<std::size_t>> importers;
  std::unordered_map<std::string, std::size_t> name_nodes, folder_nodes;
  std::size_t nodes = n;
  std::vector<std::size_t> leads;  // nodes that lead to a kept module
  std::vector<char> seen(n, 0);
  for (FileId id : level) seen[id] = 1;
  std::vector<FileId> next;
  // `from` leads to the file `x`.
  auto link = [&](std::size_t from, FileId x) {
    if (from == x) return;
    if (kept(x)) {
      leads.push_back(from);
      return;
    }
    if (!python_deferred(project, x)) return;  // not loaded
    importers[x].push_back(from);
    if (!seen[x]) {
      seen[x] = 1;
      next.push_back(x);
    }
  };
  // The node of a word (made, and linked to its files, the first time).
  auto word_node = [&](std::string_view w, bool folder) {
    auto& table = folder ? folder_nodes : name_nodes;
    auto [it, made] = table.try_emplace(std::string(w), nodes);
    if (!made) return it->second;
    const std::size_t node = nodes++;
    if (folder) {
      for (FileId x : folders.python_files_under(w)) link(node, x);
    } else if (auto files = by_name.find(w); files != by_name.end()) {
      for (FileId x : files->second) link(node, x);
    }
    return node;
  };
  // Followed level by level, each level's unread files read together.
  while (!level.empty()) {
    read_unread(project, options, &level);
    next.clear();
    for (FileId m : level) {
      if (!project.facts[m].loaded) continue;
      if (!python_deferred(project, m)) {  // read now and no longer deferred: kept
        leads.push_back(m);
        continue;
      }
      project.facts[m].consulted = true;
      std::unordered_set<std::size_t> linked;  // the nodes m already leads to
      auto to_node = [&](std::size_t node) {
        if (linked.insert(node).second) importers[node].push_back(m);
      };
      auto visit = [&](std::string_view w, bool binds) {
        if (w.find_first_not_of('.') == std::string_view::npos) {
          // A relative import: the `__init__.py` of the package it starts from.
          if (FileId init = project.sources.find_abs(package_init(project.sources.get(m).abs_path, w.size()));
              init != kNoFile && linked.insert(init).second)
            link(m, init);
          return;
        }
        to_node(word_node(w, false));
        // A package or namespace folder bound to a name: attribute access reaches its submodules.
        if (binds) to_node(word_node(w, true));
      };
      const std::string& text = project.sources.get(m).text;
      if (!python_import_words(text, visit)) {
        // Not followed: every word may name a module or bind a package, and a relative import
        // may start from any package above.
        std::unordered_set<std::string_view> words;
        for_each_identifier(text, [&](std::string_view w) {
          if (words.insert(w).second) visit(w, true);
        });
        const std::string& path = project.sources.get(m).abs_path;
        for (std::size_t dots = 1, slashes = std::count(path.begin(), path.end(), '/'); dots < slashes; ++dots)
          visit(std::string(dots, '.'), false);
      }
    }
    level = std::move(next);
    next = {};
  }
  // What leads to a kept module is parsed: back along the links from the nodes that lead to one.
  std::vector<char> parse(nodes, 0);
  while (!leads.empty()) {
    const std::size_t node = leads.back();
    leads.pop_back();
    if (parse[node]) continue;
    parse[node] = 1;
    if (auto it = importers.find(node); it != importers.end())
      for (std::size_t from : it->second) leads.push_back(from);
  }
  for (FileId id = 0; id < n; ++id)
    if (parse[id] && python_deferred(project, id) && project.facts[id].conditional) project.facts[id].deferred = false;
}

}  // namespace trl
