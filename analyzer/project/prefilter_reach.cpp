// The pre-filter's look at Python text and its reach (prefilter.hpp): whether a file names
// anything of training (python_may_matter, scanned sixteen bytes at a time with SSE2), the names
// a deferred file is reached by, and extract_referenced, which parses the deferred files that
// other files' words and the parsed modules' imports reach.
#include <cstring>
#include <optional>
#include <string>
#include <unordered_set>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "analyzer/project/prefilter.hpp"
#include "analyzer/project/project.hpp"
#include "analyzer/project/project_internal.hpp"
#include "rules/tool/tool_rules.hpp"

namespace trl {

namespace {

// Whether one of python_may_matter's names starts at byte i of p[0, n) (i + 1 < n). Each name is
// tried only when the next byte is its second one: 't', 'a', 'p', 'd', 'i' and 'n' start many
// words, few of which go on as these names do.
inline bool training_name_at(const char* p, std::size_t n, std::size_t i) {
  auto at = [&](std::string_view w) { return n - i >= w.size() && std::memcmp(p + i, w.data(), w.size()) == 0; };
  // `c | 0x20` folds ASCII upper case to lower case and maps no other byte onto a lower-case letter.
  auto folded = [&](std::string_view lower) {
    if (n - i < lower.size()) return false;
    for (std::size_t k = 0; k < lower.size(); ++k)
      if (static_cast<char>(p[i + k] | 0x20) != lower[k]) return false;
    return true;
  };
  const char next = p[i + 1];
  switch (p[i]) {
    case 't':
      return (next == 'r' && (at("trl") || at("transformers") || folded("trl-"))) || (next == 'R' && folded("trl-"));
    case 'T': return (next == 'r' && (at("Trainer") || folded("trl-"))) || (next == 'R' && folded("trl-"));
    case 'a': return next == 'c' && at("accelerate");
    case 'p': return next == 'e' && at("peft");
    case 'd': return next == 'e' && at("deepspeed");
    case 'i': return next == 'm' && at("import_module");
    case '_': return next == '_' && at("__import__");
    case 'n':
    case 'N': return (next == 'o' || next == 'O') && folded("noqa");
    default: return false;
  }
}

// Where the first name starting at some byte from `i` on is, one position at a time (n: none).
std::size_t training_name_from(const char* p, std::size_t n, std::size_t i) {
  for (; i + 1 < n; ++i)
    if (training_name_at(p, n, i)) return i;
  return n;
}

}  // namespace

bool python_may_matter_bytewise(std::string_view text) {
  return training_name_from(text.data(), text.size(), 0) < text.size();
}

bool python_may_matter(std::string_view text) {
  return find_training_name(text, 0) < text.size();
}

std::size_t find_training_name(std::string_view text, std::size_t from) {
  // A file that names none of these is a run candidate only if a launch line, a configuration
  // or an import names it, which extract_referenced handles. The names (case-sensitive): trl,
  // transformers, accelerate, peft, deepspeed, Trainer, import_module, __import__; and `# noqa`
  // and `# trl-lint:` comments in any case. This runs over every Python file: most of them
  // match nothing and are read to the end, which a byte-at-a-time scan made the largest single
  // cost of a first run over 20,000 files (23% of its instructions).
#if defined(__SSE2__)
  // Sixteen positions at a time: a position is looked at closely (training_name_at) only when
  // its byte and the next two, with the 0x20 bit set, are the first three of a name so folded:
  // trl (trl, TRL-), tra (transformers, Trainer), acc, pef, dee, imp, noq, and 0x7F 0x7F i
  // (`__i`; only `_` and DEL fold to 0x7F). Every position training_name_at accepts is one of
  // these, and few others are (two bytes let through every `def` and `None`).
  const std::size_t n = text.size();
  const char* p = text.data();
  std::size_t i = std::min(from, n);
  if (n >= 18) {
    const __m128i bit = _mm_set1_epi8(0x20);
    auto load = [&](std::size_t at) {
      return _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + at)), bit);
    };
    auto is = [](__m128i v, char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); };
    auto both = [](__m128i u, __m128i v, __m128i w) { return _mm_and_si128(_mm_and_si128(u, v), w); };
    for (; i + 18 <= n; i += 16) {
      // The loads stay inside the text: bytes i..i+15, i+1..i+16 and i+2..i+17.
      const __m128i x = load(i), y = load(i + 1), z = load(i + 2);
      const __m128i ye = is(y, 'e');
      __m128i hit = both(is(x, 't'), is(y, 'r'), _mm_or_si128(is(z, 'l'), is(z, 'a')));
      hit = _mm_or_si128(hit, both(is(x, 'a'), is(y, 'c'), is(z, 'c')));
      hit = _mm_or_si128(hit, both(is(x, 'p'), ye, is(z, 'f')));
      hit = _mm_or_si128(hit, both(is(x, 'd'), ye, is(z, 'e')));
      hit = _mm_or_si128(hit, both(is(x, 'i'), is(y, 'm'), is(z, 'p')));
      hit = _mm_or_si128(hit, both(is(x, '\x7f'), is(y, '\x7f'), is(z, 'i')));
      hit = _mm_or_si128(hit, both(is(x, 'n'), is(y, 'o'), is(z, 'q')));
      for (auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit)); mask != 0; mask &= mask - 1)
        if (const std::size_t at = i + static_cast<std::size_t>(__builtin_ctz(mask)); training_name_at(p, n, at))
          return at;
    }
  }
  return training_name_from(p, n, i);  // the tail the blocks left
#else
  return training_name_from(text.data(), text.size(), std::min(from, text.size()));
#endif
}

bool python_deferred(const Project& project, FileId id) {
  if (id >= project.facts.size() || project.sources.get(id).kind != FileKind::Python) return false;
  const FileFacts& f = project.facts[id];
  return f.loaded && f.deferred && !f.extracted;
}

namespace project_detail {

std::string_view main_module_alias(std::string_view path) {
  constexpr std::string_view kMain = "/__main__.py";
  if (path.size() <= kMain.size() || path.substr(path.size() - kMain.size()) != kMain) return {};
  const std::string_view folder = path.substr(0, path.size() - kMain.size());
  const std::size_t slash = folder.rfind('/');
  return slash == std::string_view::npos ? folder : folder.substr(slash + 1);
}

}  // namespace project_detail

using project_detail::for_each_word;
using project_detail::main_module_alias;

namespace {

void add_words(std::string_view text, std::unordered_set<std::string>& out) {
  for_each_word(text, [&](std::string_view w) { out.emplace(w); });
}

}  // namespace

// On strings: std::filesystem split the whole path into parts at every call, which was a tenth
// of a run after one file of 20,000 changed.
std::string_view python_reach_name(std::string_view path) {
  auto last = [](std::string_view p) {
    while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);  // "a/b/" names b's folder
    const std::size_t slash = p.rfind('/');
    return slash == std::string_view::npos ? p : p.substr(slash + 1);
  };
  if (!path.empty() && path.back() == '/') return {};  // a folder: no file name, no stem
  std::string_view name = last(path);
  if (name == "__init__.py") {
    std::string_view folder = path.substr(0, path.size() - name.size());
    while (!folder.empty() && folder.back() == '/') folder.remove_suffix(1);
    return folder.empty() ? std::string_view{} : last(folder);
  }
  if (name == "." || name == "..") return name;
  const std::size_t dot = name.rfind('.');
  return dot == std::string_view::npos || dot == 0 ? name : name.substr(0, dot);
}

void extract_referenced(Project& project, const std::vector<std::string>& names,
                        std::optional<ProjectFolders>* given_folders) {
  std::unordered_set<std::string> reached(names.begin(), names.end());
  const std::size_t n = project.sources.size();
  std::vector<char> scanned(n, 0), tried(n, 0);
  // Modules reached otherwise than by name: the package `__init__.py` of a relative import, and
  // the modules under a package or namespace folder an import binds (`import pkg`, then
  // `pkg.sub.mod.f()`; the evaluator follows such attribute access). Of those, a module that
  // only imports tokenizer classes (parsed before it could be deferred) is reached at once; an
  // ordinary one when some parsed module names it as an attribute (`.mod`) or in a string
  // (`getattr(pkg, "mod")`), wherever the module value went.
  std::vector<char> reached_file(n, 0);
  std::unordered_set<std::string> bound;
  std::optional<ProjectFolders> own_folders;
  std::optional<ProjectFolders>& folders = given_folders ? *given_folders : own_folders;
  std::vector<FileId> under_bound;  // ordinary modules under a bound folder, not reached yet
  auto bind = [&](std::string_view name) {
    if (name.empty() || !bound.emplace(name).second) return;
    if (!folders) folders.emplace(project);
    for (FileId x : folders->python_files_under(name)) {
      if (project.facts[x].conditional)
        reached_file[x] = 1;
      else
        under_bound.push_back(x);
    }
  };
  std::unordered_set<std::string> attribute_words;
  std::vector<char> words_taken(n, 0);
  auto take_attribute_words = [&] {
    for (FileId id = 0; id < n; ++id) {
      if (words_taken[id] || !scanned[id]) continue;
      words_taken[id] = 1;
      const py::Module& m = project.facts[id].python;
      for (const auto& e : m.exprs) {
        if (e.kind == py::ExprKind::Attribute) attribute_words.insert(e.name);
        if (e.kind == py::ExprKind::Constant && m.constant(e).kind == Scalar::Kind::Str)
          add_words(m.constant(e).s, attribute_words);
      }
    }
  };
  auto is_reached = [&](FileId id) {
    const std::string& path = project.sources.get(id).abs_path;
    if (reached.count(std::string(python_reach_name(path)))) return true;
    const std::string_view alias = main_module_alias(path);
    return !alias.empty() && reached.count(std::string(alias));
  };
  for (;;) {
    for (FileId id = 0; id < n; ++id) {
      if (scanned[id] || python_deferred(project, id)) continue;
      scanned[id] = 1;
      for (const auto& s : project.facts[id].python.stmts) {
        if (s.kind != py::StmtKind::Import && s.kind != py::StmtKind::ImportFrom) continue;
        add_words(s.module, reached);
        for (const auto& a : s.names) {
          add_words(a.name, reached);
          bind(s.kind == py::StmtKind::Import ? std::string_view(a.name).substr(0, a.name.find('.'))
                                              : std::string_view(a.name));
        }
        if (s.kind == py::StmtKind::ImportFrom && s.level > 0)
          if (FileId init = project.sources.find_abs(
                  package_init(project.sources.get(id).abs_path, static_cast<std::size_t>(s.level)));
              init != kNoFile)
            reached_file[init] = 1;
      }
    }
    if (!under_bound.empty()) {
      take_attribute_words();
      std::erase_if(under_bound, [&](FileId x) {
        if (!attribute_words.count(std::string(python_reach_name(project.sources.get(x).abs_path)))) return false;
        reached_file[x] = 1;
        return true;
      });
    }
    std::vector<FileId> now;
    for (FileId id = 0; id < n; ++id)
      if (!tried[id] && python_deferred(project, id) && (reached_file[id] || is_reached(id))) now.push_back(id);
    if (now.empty()) return;
    for (FileId id : now) {
      tried[id] = 1;
      try {
        if (project.facts[id].unread) {
          // Left unread on the result cache's word: its text is needed now.
          LoadOptions options;
          options.threads = 1;
          options.max_file_size = project.max_file_size;
          const std::vector<FileId> one{id};
          read_unread(project, options, &one);
          if (!project.facts[id].loaded || project.facts[id].extracted) continue;
        }
        extract_file(project, id);
      } catch (const std::exception& e) {
        project.facts[id] = FileFacts{};
        project.facts[id].loaded = true;
        project.facts[id].problems.push_back(
            {tool_rules::kUnreadableFile, std::string("internal error while reading: ") + e.what(), Span{id}});
      }
    }
  }
}

}  // namespace trl
