#include "analyzer/project/project.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <unordered_set>

#include "analyzer/deps/pin_extractor.hpp"
#include "analyzer/discover/discover.hpp"
#include "analyzer/json/json_extractor.hpp"
#include "analyzer/make/makefile_extractor.hpp"
#include "analyzer/makefile/makefile_comments.hpp"
#include "analyzer/markdown/markdown_extractor.hpp"
#include "analyzer/notebook/notebook_extractor.hpp"
#include "analyzer/parse/tree_sitter.hpp"
#include "analyzer/project/prefilter.hpp"
#include "analyzer/python/python_extractor.hpp"
#include "analyzer/shell/shell_extractor.hpp"
#include "analyzer/util/binary_io.hpp"
#include "analyzer/util/clean_path.hpp"
#include "analyzer/util/parallel.hpp"
#include "analyzer/yaml/workflow.hpp"
#include "analyzer/yaml/yaml_extractor.hpp"

namespace fs = std::filesystem;

namespace trl {

bool ask_disk(const DiskProbe& probe) {
  std::error_code ec;
  if (!probe.holds) return fs::exists(probe.path, ec);
  if (!fs::is_directory(probe.path, ec)) return false;
  // A bounded look: a folder of more than 10,000 entries without one of the kind counts as none.
  int seen = 0;
  for (fs::directory_iterator it(probe.path, ec), end; !ec && it != end && seen < 10000; it.increment(ec), ++seen)
    if (it->path().extension() == probe.ext && it->is_regular_file(ec)) return true;
  return false;
}

void DiskProbes::record(DiskProbe probe) {
  const std::lock_guard<std::mutex> lock(mutex_);
  asked_.push_back(std::move(probe));
}

std::vector<DiskProbe> DiskProbes::list() const {
  std::vector<DiskProbe> out;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    out = asked_;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

struct Project::Listed {
  std::mutex mutex;
  std::size_t files = 0;                    // how many files the sets were made from
  std::unordered_set<std::string> present;  // the files, and every folder above one
  std::unordered_set<std::string> kinds;    // "folder\nextension" of each file
};

std::shared_ptr<Project::Listed> Project::make_listed() {
  return std::make_shared<Listed>();
}

bool Project::listed(const std::string& key, bool kind) const {
  // Made once for a build of the runs (its threads ask together); a project that gained files
  // since (the language server's) makes them again.
  Listed& l = *listed_;
  const std::lock_guard<std::mutex> lock(l.mutex);
  if (l.files != sources.size() || l.present.empty()) {
    l.present.clear();
    l.kinds.clear();
    for (FileId id = 0; id < sources.size(); ++id) {
      const std::string& abs = sources.get(id).abs_path;
      if (abs.empty() || abs[0] != '/') continue;  // <skipped>/ and texts that are not on disk
      const fs::path path(abs);
      l.kinds.insert(path.parent_path().string() + '\n' + path.extension().string());
      l.present.insert(abs);
      for (fs::path dir = path.parent_path(); dir.has_relative_path(); dir = dir.parent_path())
        if (!l.present.insert(dir.string()).second) break;  // its parents are in already
    }
    l.files = sources.size();
  }
  return kind ? l.kinds.count(key) > 0 : l.present.count(key) > 0;
}

std::string DiskAnswers::key(const DiskProbe& question) {
  std::string k = question.path;  // no path holds a NUL byte
  k += '\0';
  k += question.holds ? '1' : '0';
  k += question.ext;
  return k;
}

std::optional<bool> DiskAnswers::find(const DiskProbe& question) const {
  const std::string k = key(question);
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto it = known_.find(k);
  return it == known_.end() ? std::nullopt : std::optional<bool>(it->second);
}

void DiskAnswers::keep(const DiskProbe& question) {
  std::string k = key(question);
  const std::lock_guard<std::mutex> lock(mutex_);
  known_.emplace(std::move(k), question.answer);
}

bool Project::ask(DiskProbe question) const {
  // A question asked before in this analysis was recorded (in disk_probes) then.
  if (disk_answers)
    if (const auto known = disk_answers->find(question)) return *known;
  question.answer = ask_disk(question);
  const bool answer = question.answer;
  if (disk_answers) disk_answers->keep(question);
  if (disk_probes) disk_probes->record(std::move(question));
  return answer;
}

bool Project::exists(std::string path) const {
  return listed(path, false) || ask({std::move(path), false, {}, false});
}

bool Project::folder_holds(std::string folder, std::string ext) const {
  return listed(folder + '\n' + ext, true) || ask({std::move(folder), true, std::move(ext), false});
}

FileId Project::resolve(const std::string& path, const std::vector<std::string>& bases) const {
  if (path.empty()) return kNoFile;
  if (path.front() == '/')
    return is_clean_abs_path(path) ? sources.find_abs(path)
                                   : sources.find_abs(fs::path(path).lexically_normal().string());
  // Launch lines name plain relative paths and the bases are discovery's folders: joined as
  // strings (path objects for every base of every reference showed in profiles of run building).
  std::string joined;
  for (const auto& base : bases) {
    const FileId id = join_clean(base, path, joined)
                          ? sources.find_abs(joined)
                          : sources.find_abs((fs::path(base) / fs::path(path)).lexically_normal().string());
    if (id != kNoFile) return id;
  }
  return kNoFile;
}

// Checks text the way reading from disk does (size, NUL bytes, UTF-8, byte order mark) and keeps it.
void accept_text(SourceFile& file, FileFacts& facts, std::string text) {
  if (text.size() >= kNoFile) {  // spans are 32-bit byte offsets
    facts.problems.push_back({"TRL905", "file is 4 GB or more; skipped", Span{file.id}});
    return;
  }
  if (text.find('\0') != std::string::npos) {
    facts.problems.push_back({"TRL902", "file contains NUL bytes (binary?); skipped", Span{file.id}});
    return;
  }
  if (!is_valid_utf8(text)) {
    facts.problems.push_back({"TRL902", "file is not valid UTF-8; skipped", Span{file.id}});
    return;
  }
  // A UTF-8 byte order mark is not part of the content (Python and PyYAML skip it).
  file.bom = text.rfind("\xEF\xBB\xBF", 0) == 0;
  if (file.bom) text.replace(0, 3, "   ");
  file.text = std::move(text);
  file.index_lines();
  facts.loaded = true;
}

namespace {

FileStamp stamp_of(const struct stat& st) {
  FileStamp s;
  s.valid = true;
  s.dev = static_cast<std::uint64_t>(st.st_dev);
  s.ino = static_cast<std::uint64_t>(st.st_ino);
  s.size = static_cast<std::uint64_t>(st.st_size);
  s.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  s.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  return s;
}

// Reads a file with the checks every later stage relies on: size, text, UTF-8. One open, one
// fstat and as few reads as the size allows (this runs over every file of the repository).
void read_file(SourceFile& file, FileFacts& facts, std::uint64_t max_size) {
  auto too_big = [&](std::uint64_t size) {
    facts.problems.push_back({"TRL905",
                              "file is " + std::to_string(size >> 20) + " MB, over the " +
                                  std::to_string(max_size >> 20) + " MB limit (--max-file-size); skipped",
                              Span{file.id}});
  };
  // O_NONBLOCK: a file replaced by a FIFO since discovery must not block the open.
  const int fd = ::open(file.abs_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    struct stat st {};
    if (::stat(file.abs_path.c_str(), &st) != 0) {
      facts.problems.push_back(
          {"TRL901", "cannot read file: " + std::error_code(errno, std::system_category()).message(), Span{file.id}});
    } else if (static_cast<std::uint64_t>(st.st_size) > max_size) {
      too_big(static_cast<std::uint64_t>(st.st_size));
    } else {
      facts.problems.push_back({"TRL901", "cannot read file: permission denied or vanished", Span{file.id}});
    }
    return;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    facts.problems.push_back(
        {"TRL901", "cannot read file: " + std::error_code(errno, std::system_category()).message(), Span{file.id}});
    return;
  }
  if (!S_ISREG(st.st_mode)) {
    facts.problems.push_back({"TRL901", "not a regular file (FIFO, socket or device); skipped", Span{file.id}});
    return;
  }
  facts.stamp = stamp_of(st);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_size) {
    too_big(size);
    return;
  }
  // One byte more than the size: a read that fills it means the file grew since fstat.
  std::string text(static_cast<std::size_t>(size) + 1, '\0');
  std::size_t done = 0;
  for (;;) {
    if (done == text.size()) {
      // The file may have grown since fstat: read on, within the limit.
      if (text.size() > max_size) {
        too_big(text.size());
        return;
      }
      text.resize(std::max<std::size_t>(text.size() * 2, 4096));
    }
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      facts.problems.push_back({"TRL901", "cannot read file: read error", Span{file.id}});
      return;
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  text.resize(done);
  accept_text(file, facts, std::move(text));
}

// The project file an overlay stands for: the discovered one with the same path, else a new
// file (a buffer not saved yet, or one discovery skipped).
FileId overlay_target(Project& project, const Overlay& overlay) {
  std::error_code ec;
  fs::path abs = fs::absolute(overlay.path, ec).lexically_normal();
  for (const fs::path& candidate : {abs, fs::weakly_canonical(abs, ec)}) {
    FileId id = project.sources.find_abs(candidate.string());
    if (id != kNoFile) return id;
  }
  auto sf = std::make_unique<SourceFile>();
  fs::path canonical = fs::weakly_canonical(abs, ec);
  if (ec) canonical = abs;
  fs::path rel = fs::relative(canonical, fs::current_path(ec), ec);
  sf->path = (ec || rel.empty()) ? canonical.generic_string() : rel.generic_string();
  sf->abs_path = canonical.string();
  sf->kind = classify(canonical.filename().string(), std::string_view(overlay.text).substr(0, 256),
                      canonical.parent_path().filename().string());
  FileId id = project.sources.add(std::move(sf));
  project.facts.emplace_back();
  return id;
}

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

namespace {

// Calls `fn` with the parts of every word of `text`, split at anything but letters, digits, `_`,
// `-` and non-ASCII bytes (a module's name may be non-ASCII): `scripts/train.py` gives
// `scripts`, `train`, `py`. With `dotted`, only the words with a `.` inside, whole
// (`prep.v2.py`), and again without a final `.py` (`prep.v2`, the name of that module).
template <class Fn>
void for_each_word(std::string_view text, Fn fn, bool dotted = false) {
  auto word_char = [&](char c) {
    const auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) || c == '_' || c == '-' || u >= 0x80 || (dotted && c == '.');
  };
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !word_char(text[i])) ++i;
    const std::size_t b = i;
    while (i < text.size() && word_char(text[i])) ++i;
    if (i == b) continue;
    std::string_view w = text.substr(b, i - b);
    if (!dotted) {
      fn(w);
      continue;
    }
    while (!w.empty() && w.back() == '.') w.remove_suffix(1);  // the end of a sentence
    if (w.find('.') == std::string_view::npos) continue;
    fn(w);
    if (w.size() > 3 && w.substr(w.size() - 3) == ".py") fn(w.substr(0, w.size() - 3));
  }
}

// The other name a module is reached by: its package's for `pkg/__main__.py` (`python -m pkg`
// runs it); "" for any other file.
std::string_view main_module_alias(std::string_view path) {
  constexpr std::string_view kMain = "/__main__.py";
  if (path.size() <= kMain.size() || path.substr(path.size() - kMain.size()) != kMain) return {};
  const std::string_view folder = path.substr(0, path.size() - kMain.size());
  const std::size_t slash = folder.rfind('/');
  return slash == std::string_view::npos ? folder : folder.substr(slash + 1);
}

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
      for (const auto& e : project.facts[id].python.exprs) {
        if (e.kind == py::ExprKind::Attribute) attribute_words.insert(e.name);
        if (e.kind == py::ExprKind::Constant && e.constant.kind == Scalar::Kind::Str)
          add_words(e.constant.s, attribute_words);
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
            {"TRL901", std::string("internal error while reading: ") + e.what(), Span{id}});
      }
    }
  }
}

FileId add_file_from_text(Project& project, const std::string& path, std::string text, FileKind kind) {
  auto sf = std::make_unique<SourceFile>();
  sf->path = path;
  sf->abs_path = (fs::path(project.root) / path).lexically_normal().string();
  sf->kind = kind;
  FileId id = project.sources.add(std::move(sf));
  project.facts.resize(project.sources.size());
  SourceFile& file = project.sources.get_mut(id);
  accept_text(file, project.facts[id], std::move(text));
  if (project.facts[id].loaded) extract_file(project, id);
  return id;
}

void extract_file(Project& project, FileId id) {
  SourceFile& file = project.sources.get_mut(id);
  FileFacts& facts = project.facts[id];
  facts.extracted = true;
  const std::uint64_t unchecked_before = ts::unchecked_parses();
  auto take = [&](std::vector<FileProblem>& problems) {
    for (auto& p : problems) facts.problems.push_back(std::move(p));
  };
  switch (file.kind) {
    case FileKind::Python: {
      auto f = python::extract(file.text, id);
      facts.python = std::move(f.module);
      facts.comments = std::move(f.comments);
      take(f.problems);
      break;
    }
    case FileKind::Yaml: {
      // The three spaces that stand for a byte order mark would indent the first line (invalid
      // YAML); the grammar and PyYAML skip the mark itself.
      std::string with_bom;
      if (file.bom) with_bom = "\xEF\xBB\xBF" + file.text.substr(3);
      auto f = yaml::extract(file.bom ? std::string_view(with_bom) : std::string_view(file.text), id);
      facts.yaml = std::move(f.documents);
      facts.comments = std::move(f.comments);
      take(f.problems);
      if (yaml::is_workflow_path(file.abs_path))
        for (const auto& doc : facts.yaml) {
          auto w = yaml::workflow_commands(doc, file.text, id);
          for (auto& c : w.commands) facts.commands.push_back(std::move(c));
          for (auto& c : w.created) facts.created.push_back(std::move(c));
        }
      break;
    }
    case FileKind::Json: {
      auto f = json::extract(file.text, id);
      facts.yaml = std::move(f.documents);
      take(f.problems);
      break;
    }
    case FileKind::Shell: {
      auto f = shell::extract(file.text, id);
      facts.commands = std::move(f.commands);
      facts.created = std::move(f.created);
      facts.comments = std::move(f.comments);
      take(f.problems);
      break;
    }
    case FileKind::Makefile: {
      auto f = make::extract(file.text, id);
      facts.commands = std::move(f.commands);
      facts.created = std::move(f.created);
      facts.comments = makefile::comments(file.text, id);
      break;
    }
    case FileKind::Markdown: {
      // Docs show partial snippets: their syntax errors are not reported.
      auto doc = markdown::scan(file.text);
      for (const auto& b : doc.blocks)
        facts.blocks.push_back({static_cast<DocBlock::Lang>(b.lang), b.first_line, b.last_line});
      for (const auto& h : doc.headings) facts.headings.push_back({h.level, h.line});
      auto has_code = [](const std::string& t) { return t.find_first_not_of(" \n\r") != std::string::npos; };
      if (has_code(doc.shell_text)) {
        // Each block is parsed on its own, in one session (see shell::extract_session).
        std::vector<shell::SessionPiece> pieces;
        for (const auto& b : doc.blocks)
          if (b.lang == markdown::BlockLang::Shell && b.end > b.begin) pieces.push_back({b.begin, b.end, b.first_line});
        auto f = shell::extract_session(doc.shell_text, pieces, id);
        facts.commands = std::move(f.commands);
        facts.created = std::move(f.created);
        // The shell text keeps the file's layout (what is not shell is blanked): its comments sit
        // where they are in the file, so a `# noqa` on a launch line of a code block is read.
        facts.comments = std::move(f.comments);
      }
      if (has_code(doc.python_text)) facts.python = python::extract(doc.python_text, id).module;
      if (has_code(doc.yaml_text)) facts.yaml = yaml::extract_snippets(doc.yaml_text, id).documents;
      break;
    }
    case FileKind::Notebook: {
      auto nb = notebook::scan(file.text);
      if (!nb.valid) {
        const auto at = static_cast<std::uint32_t>(nb.error_offset);
        const Point p = file.point_at(at);
        facts.problems.push_back({"TRL903", nb.error, Span{id, at, at, p, p}});
        break;
      }
      std::vector<shell::SessionPiece> pieces;
      for (const auto& piece : nb.shell_pieces) pieces.push_back({piece.begin, piece.end, piece.line, piece.isolated});
      auto f = shell::extract_session(nb.shell_text, pieces, id);
      facts.commands = std::move(f.commands);
      facts.created = std::move(f.created);
      auto py = python::extract(nb.python_text, id);
      facts.python = std::move(py.module);
      // Each line of a cell is read at its .ipynb line: the comments of `!` commands and of code
      // cells carry the notebook's line numbers, which is what a `# noqa` is matched by (their
      // columns are the decoded text's; notebooks get no fixes, see finish_diagnostics).
      facts.comments = std::move(f.comments);
      for (auto& c : py.comments) facts.comments.push_back(std::move(c));
      std::stable_sort(facts.comments.begin(), facts.comments.end(),
                       [](const Comment& a, const Comment& b) { return a.span.start.line < b.span.start.line; });
      break;
    }
    default: break;
  }
  facts.transient = ts::unchecked_parses() != unchecked_before;
  deps::extract_pins(file, facts);
}

bool prefilter_enabled() {
  return !std::getenv("TRL_LINT_NO_PREFILTER");
}

namespace {

void record_internal_error(Project& project, std::size_t i, const std::exception& e) {
  // A defect of ours on one file must not stop the others.
  project.facts[i] = FileFacts{};
  project.facts[i].problems.push_back(
      {"TRL901", std::string("internal error while reading: ") + e.what(), Span{static_cast<FileId>(i)}});
}

// Reads file `i` and records the pre-filter's decision and the content hash.
// `overlay`: the in-memory text that stands for the file (an editor buffer, stdin), or null.
void read_one(Project& project, std::size_t i, const LoadOptions& options, const std::string* overlay) {
  SourceFile& file = project.sources.get_mut(static_cast<FileId>(i));
  try {
    if (overlay)
      accept_text(file, project.facts[i], *overlay);
    else
      read_file(file, project.facts[i], options.max_file_size);
    FileFacts& f = project.facts[i];
    // TRL_LINT_NO_PREFILTER=1 parses every file (to compare the two in tests and benchmarks).
    // In-memory texts are always parsed: they are what the user is looking at.
    if (options.prefilter && prefilter_enabled() && f.loaded && file.kind == FileKind::Python && !overlay) {
      const PythonRelevance relevance = python_relevance(file.text);
      f.deferred = relevance != PythonRelevance::Matters;
      f.conditional = relevance == PythonRelevance::TokenizerOnly;
    }
    f.content_hash = f.loaded ? bin::hash64(file.text) : 0;
  } catch (const std::exception& e) {
    record_internal_error(project, i, e);
  }
}

}  // namespace

const std::string& Project::root_of(const std::string& abs_path) const {
  const std::string* best = &root;
  std::size_t best_size = 0;
  for (const auto& r : roots)
    if (r.size() > best_size && (r == "/" || (abs_path.size() > r.size() && abs_path.compare(0, r.size(), r) == 0 &&
                                              abs_path[r.size()] == '/'))) {
      best = &r;
      best_size = r.size();
    }
  return *best;
}

Project read_project(const LoadOptions& options) {
  Project project;
  Discovery d = discover(options.paths, options.excluded, options.threads, options.listed);
  project.root = d.root;
  for (const auto& given : options.paths) {
    std::error_code ec;
    const fs::path abs = fs::absolute(given, ec).lexically_normal();
    if (ec || !fs::is_directory(abs, ec)) continue;
    std::string dir = fs::weakly_canonical(abs, ec).string();
    if (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (!ec && std::find(project.roots.begin(), project.roots.end(), dir) == project.roots.end())
      project.roots.push_back(std::move(dir));
  }
  project.max_file_size = options.max_file_size;
  project.target_versions = options.target_versions;
  project.environment_hints = options.environment_hints;
  project.missing_paths = std::move(d.missing);
  project.sources.reserve(d.files.size() + d.problems.size());
  for (auto& f : d.files) {
    auto sf = std::make_unique<SourceFile>();
    sf->path = std::move(f.display_path);
    sf->abs_path = std::move(f.abs_path);
    sf->kind = f.kind;
    project.sources.add(std::move(sf));
  }
  project.facts.resize(project.sources.size());
  // Entries the walk had to skip (FIFOs, unreadable folders) are reported as files of their own.
  for (auto& [path, message] : d.problems) {
    auto sf = std::make_unique<SourceFile>();
    sf->path = path;
    sf->abs_path = "<skipped>/" + path;
    sf->kind = FileKind::Other;
    sf->index_lines();
    FileId id = project.sources.add(std::move(sf));
    project.facts.emplace_back();
    project.facts[id].problems.push_back({"TRL901", message, Span{id}});
  }
  // 0 (nothing is older than a second before it): no record is taken.
  const std::int64_t known_since_ns = options.known_since_ns ? options.known_since_ns() : 0;
  if (options.overlay) project.overlay_file = overlay_target(project, *options.overlay);
  std::map<FileId, const std::string*> overlay_text;
  if (options.overlay) overlay_text[project.overlay_file] = &options.overlay->text;
  for (const auto& o : options.overlays) overlay_text[overlay_target(project, o)] = &o.text;
  // `dir_fd`: an open descriptor of the file's folder (or -1): the stat of the file is then
  // relative to it, which spares the kernel a walk of the whole path for each file (most of a
  // warm run's time in the kernel at 20,000 files).
  auto read_or_vouch = [&](std::size_t i, int dir_fd) {
    SourceFile& file = project.sources.get_mut(static_cast<FileId>(i));
    if (file.abs_path.rfind("<skipped>/", 0) == 0) return;  // a walk problem, already reported
    const auto overlay = overlay_text.find(static_cast<FileId>(i));
    if (overlay != overlay_text.end()) {
      read_one(project, i, options, overlay->second);
      return;
    }
    if (options.known) {
      // The result cache's record stands for the file while its stamp is unchanged and it was
      // last modified well before the record was taken (a file written in the same instant as
      // its record may have changed unseen: read it).
      if (const KnownFile* k = options.known(file.abs_path)) {
        struct stat st {};
        const std::size_t slash = file.abs_path.rfind('/');
        const int got = dir_fd >= 0 && slash != std::string::npos
                            ? ::fstatat(dir_fd, file.abs_path.c_str() + slash + 1, &st, 0)
                            : ::stat(file.abs_path.c_str(), &st);
        if (k->stamp.valid && got == 0 && S_ISREG(st.st_mode)) {
          const FileStamp now = stamp_of(st);
          if (now == k->stamp && now.mtime_ns < known_since_ns - 1000000000 &&
              now.ctime_ns < known_since_ns - 1000000000) {
            FileFacts& f = project.facts[i];
            f.unread = true;
            f.stamp = now;
            f.loaded = k->loaded;
            f.deferred = k->deferred;
            f.conditional = k->conditional;
            f.content_hash = k->content_hash;
            for (const auto& [code, message] : k->problems) f.problems.push_back({code, message, Span{file.id}});
            return;
          }
        }
      }
    }
    read_one(project, i, options, nullptr);
  };
  if (!options.known) {
    parallel_for(project.sources.size(), options.threads, [&](std::size_t i) { read_or_vouch(i, -1); });
    return project;
  }
  // With the cache's records: the files in runs of the same folder (files are sorted by path),
  // each run's folder opened once.
  std::vector<std::pair<std::size_t, std::size_t>> runs;  // [begin, end) of project.sources
  auto folder_of = [&](std::size_t i) {
    const std::string& path = project.sources.get(static_cast<FileId>(i)).abs_path;
    return std::string_view(path).substr(0, path.rfind('/') + 1);
  };
  for (std::size_t i = 0; i < project.sources.size(); ++i) {
    if (!runs.empty() && runs.back().second == i && folder_of(runs.back().first) == folder_of(i) &&
        !folder_of(i).empty() && i - runs.back().first < 256)
      ++runs.back().second;
    else
      runs.emplace_back(i, i + 1);
  }
  parallel_for(runs.size(), options.threads, [&](std::size_t r) {
    const auto [begin, end] = runs[r];
    const std::string folder(folder_of(begin));
    struct Folder {  // closed however the run ends
      int fd = -1;
      ~Folder() {
        if (fd >= 0) ::close(fd);
      }
    } dir;
    if (end - begin > 1 && !folder.empty() && folder.front() == '/')  // not a walk problem's `<skipped>/`
      dir.fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_PATH);
    for (std::size_t i = begin; i < end; ++i) read_or_vouch(i, dir.fd);
  });
  return project;
}

void read_unread(Project& project, const LoadOptions& options, const std::vector<FileId>* only) {
  std::vector<FileId> ids;
  if (only) {
    for (FileId id : *only)
      if (id < project.facts.size() && project.facts[id].unread) ids.push_back(id);
  } else {
    for (FileId id = 0; id < project.facts.size(); ++id)
      if (project.facts[id].unread) ids.push_back(id);
  }
  parallel_for(ids.size(), options.threads, [&](std::size_t k) {
    const FileId id = ids[k];
    project.facts[id] = FileFacts{};
    read_one(project, id, options, nullptr);
  });
}

void read_needed(Project& project, const LoadOptions& options) {
  std::vector<FileId> ids;
  for (FileId id = 0; id < project.facts.size(); ++id)
    if (project.facts[id].unread && !(project.facts[id].deferred && project.sources.get(id).kind == FileKind::Python))
      ids.push_back(id);
  read_unread(project, options, &ids);
}

void extract_project(Project& project, const LoadOptions& options) {
  // TokenizerOnly modules whose imports lead to a kept module are parsed with the others.
  std::optional<ProjectFolders> folders;  // made when an import needs it, shared by both passes
  if (prefilter_enabled()) resolve_conditional(project, options, folders);
  // Largest files first: the threads take the next file as they finish one, and a large file
  // taken last kept one thread parsing while the other waited (in path order the biggest
  // modules of a package come last; up to 2 ms idle of a 12 ms run at the open-r1 size). The
  // facts do not depend on the order: each file's are its own.
  std::vector<FileId> todo;
  for (FileId id = 0; id < project.sources.size(); ++id) {
    const FileFacts& f = project.facts[id];
    if (f.loaded && !f.deferred && !f.extracted) todo.push_back(id);  // deferred: parsed below if anything reaches it
  }
  std::stable_sort(todo.begin(), todo.end(), [&](FileId a, FileId b) {
    return project.sources.get(a).text.size() > project.sources.get(b).text.size();
  });
  parallel_for(todo.size(), options.threads, [&](std::size_t k) {
    try {
      extract_file(project, todo[k]);
    } catch (const std::exception& e) {
      record_internal_error(project, todo[k], e);
    }
  });
  if (prefilter_enabled()) {
    // Deferred files that a launch line, a configuration, a document or an import names are
    // parsed after all: every word of the other files' texts, and the imports of the modules.
    // Only the words that name a deferred file matter: they are looked up, not collected.
    std::vector<std::string> names;
    bool dotted = false;  // a deferred module whose name has a `.` (`prep.v2.py`)
    for (FileId id = 0; id < project.sources.size(); ++id)
      if (python_deferred(project, id)) {
        const std::string& path = project.sources.get(id).abs_path;
        names.emplace_back(python_reach_name(path));
        dotted = dotted || names.back().find('.') != std::string::npos;
        if (std::string_view alias = main_module_alias(path); !alias.empty()) names.emplace_back(alias);
      }
    const std::unordered_set<std::string_view> deferred(names.begin(), names.end());
    std::unordered_set<std::string_view> named;
    auto look_up = [&](std::string_view w) {
      if (auto it = deferred.find(w); it != deferred.end()) named.insert(*it);
    };
    if (!deferred.empty())
      for (FileId id = 0; id < project.sources.size(); ++id)
        if (project.sources.get(id).kind != FileKind::Python) {
          for_each_word(project.sources.get(id).text, look_up);
          if (dotted) for_each_word(project.sources.get(id).text, look_up, true);
        }
    extract_referenced(project, std::vector<std::string>(named.begin(), named.end()), &folders);
  }
  load_referenced_json(project, options);
}

Project load_project(const LoadOptions& options) {
  Project project = read_project(options);
  extract_project(project, options);
  return project;
}

namespace {
// The `*.json` paths a file's text names in string literals: "cfg/train.json" or 'x.json'.
std::vector<std::string> json_literals(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t at = text.find(".json"); at != std::string_view::npos; at = text.find(".json", at + 5)) {
    const std::size_t end = at + 5;
    if (end >= text.size() || (text[end] != '"' && text[end] != '\'')) continue;
    const char quote = text[end];
    std::size_t start = at;
    while (start > 0 && text[start - 1] != quote && text[start - 1] != '\n' && at - start < 512) --start;
    if (start == 0 || text[start - 1] != quote || start == at) continue;
    out.emplace_back(text.substr(start, end - start));
  }
  return out;
}

bool ends_with_json(std::string_view s) {
  return s.size() > 5 && s.substr(s.size() - 5) == ".json";
}

// A JSON file some analysed file names, and the folder (relative to the naming file's, "" for
// its own) a relative name is also looked up from.
struct JsonName {
  std::string name;
  std::string cwd;
};

// The JSON files a file names: Python code (scripts, notebooks, docs' Python blocks) in string
// literals; any command line (shell, Slurm, Makefile recipes, workflow steps, docs' shell blocks)
// as the accelerate config of `accelerate launch --config_file X.json` or `trl <command>
// --accelerate_config X.json`, which accelerate reads with json.load (accelerate v1.14
// commands/config/config_args.py load_config_from_file: a name ending in ".json" is read as JSON,
// any other as YAML). The words are read without parsing the command: a `.json` word after
// either option, or joined to it by `=`, wherever it stands in the line (behind srun, say).
std::vector<JsonName> json_names(const Project& project, FileId id) {
  std::vector<JsonName> out;
  const SourceFile& from = project.sources.get(id);
  const FileFacts& facts = project.facts[id];
  if (!facts.loaded || python_deferred(project, id)) return out;
  if (from.kind == FileKind::Python || from.kind == FileKind::Notebook || from.kind == FileKind::Markdown)
    for (std::string& literal : json_literals(from.text)) out.push_back({std::move(literal), ""});
  static constexpr std::string_view kOptions[] = {"--config_file", "--config-file", "--accelerate_config",
                                                  "--accelerate-config"};
  for (const CommandFact& c : facts.commands) {
    const std::string cwd = c.cwd_known ? c.cwd : "";
    for (std::size_t i = 0; i < c.argv.size(); ++i) {
      const Word& w = c.argv[i];
      if (!w.known) continue;
      for (std::string_view o : kOptions) {
        if (w.text == o && i + 1 < c.argv.size() && c.argv[i + 1].known && ends_with_json(c.argv[i + 1].text))
          out.push_back({c.argv[i + 1].text, cwd});
        else if (w.text.size() > o.size() + 1 && w.text.compare(0, o.size(), o) == 0 && w.text[o.size()] == '=' &&
                 ends_with_json(std::string_view(w.text).substr(o.size() + 1)))
          out.push_back({w.text.substr(o.size() + 1), cwd});
      }
    }
  }
  return out;
}

}  // namespace

bool inside_folder(const std::string& path, const std::string& folder) {
  return !folder.empty() && path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 &&
         (folder.back() == '/' || path[folder.size()] == '/');
}

FileId add_json_file(Project& project, const std::string& abs_path, std::uint64_t max_file_size) {
  std::error_code ec;
  const fs::path candidate(abs_path);
  auto sf = std::make_unique<SourceFile>();
  const fs::path shown = fs::relative(candidate, fs::current_path(ec), ec);
  sf->path = (ec || shown.empty()) ? candidate.generic_string() : shown.generic_string();
  sf->abs_path = abs_path;
  sf->kind = FileKind::Json;
  const FileId id = project.sources.add(std::move(sf));
  project.facts.resize(project.sources.size());
  read_file(project.sources.get_mut(id), project.facts[id], max_file_size);
  return id;
}

void load_referenced_json(Project& project, const LoadOptions& options) {
  if (project.root.empty()) return;
  std::error_code ec;
  const fs::path root = fs::path(project.root).lexically_normal();
  const fs::path root_real = fs::weakly_canonical(root, ec);
  auto under = [](const fs::path& p, const fs::path& folder) { return inside_folder(p.string(), folder.string()); };
  const fs::path cwd = fs::current_path(ec);
  const std::size_t n = project.sources.size();
  for (std::size_t i = 0; i < n; ++i) {
    // Not the Python files the pre-filter left unparsed (nothing of training, reached by nothing):
    // their text takes part in no run (and the result cache does not key on it).
    const std::vector<JsonName> names = json_names(project, static_cast<FileId>(i));
    if (names.empty()) continue;
    const fs::path dir = fs::path(project.sources.get(static_cast<FileId>(i)).abs_path).parent_path();
    for (const JsonName& named : names) {
      const fs::path rel(named.name);
      if (rel.is_absolute()) continue;  // a path on the author's machine
      std::vector<fs::path> bases{root, dir, cwd};
      if (!named.cwd.empty()) bases.push_back((dir / named.cwd).lexically_normal());
      for (const fs::path& base : bases) {
        const fs::path candidate = (base / rel).lexically_normal();
        if (!under(candidate, root)) continue;  // never read outside the analysed root
        // The result cache asks again whether each name still finds (or still misses) a file.
        if (project.disk_probes)
          project.disk_probes->record({candidate.string(), false, "", fs::exists(candidate, ec)});
        if (const FileId have = project.sources.find_abs(candidate.string()); have != kNoFile) {
          // Already loaded: by another name, or by a cache lookup that then missed (not extracted).
          if (project.sources.get(have).kind == FileKind::Json && project.facts[have].loaded &&
              !project.facts[have].extracted)
            extract_file(project, have);
          break;
        }
        if (!fs::is_regular_file(candidate, ec)) continue;
        if (!under(fs::weakly_canonical(candidate, ec), root_real)) continue;  // a symlink out of the root
        if (options.excluded && options.excluded(candidate.string())) break;
        const FileId id = add_json_file(project, candidate.string(), options.max_file_size);
        if (project.facts[id].loaded) extract_file(project, id);
        break;
      }
    }
  }
}

namespace {
void extract_guarded(Project& project, FileId id) {
  try {
    if (project.facts[id].loaded) extract_file(project, id);
  } catch (const std::exception& e) {
    project.facts[id] = FileFacts{};
    project.facts[id].problems.push_back(
        {"TRL901", std::string("internal error while reading: ") + e.what(), Span{id}});
  }
}
}  // namespace

void replace_file_text(Project& project, FileId id, std::string text) {
  project.facts.at(id) = FileFacts{};
  accept_text(project.sources.get_mut(id), project.facts[id], std::move(text));
  extract_guarded(project, id);
}

void reload_file(Project& project, FileId id, std::uint64_t max_file_size) {
  project.facts.at(id) = FileFacts{};
  SourceFile& file = project.sources.get_mut(id);
  file.text.clear();
  file.index_lines();
  read_file(file, project.facts[id], max_file_size);
  extract_guarded(project, id);
}

FileId find_or_add_file(Project& project, const std::string& abs_path, std::string_view head) {
  return overlay_target(project, Overlay{abs_path, std::string(head.substr(0, 256))});
}

bool names_json_files(const Project& project) {
  for (std::size_t i = 0; i < project.sources.size(); ++i) {
    if (project.sources.get(static_cast<FileId>(i)).kind == FileKind::Json) return true;
    for (const JsonName& named : json_names(project, static_cast<FileId>(i)))
      if (!fs::path(named.name).is_absolute()) return true;
  }
  return false;
}

Project make_project(const std::string& root, const std::vector<std::pair<std::string, std::string>>& files) {
  Project project;
  project.root = root;
  for (const auto& [rel, text] : files) {
    auto sf = std::make_unique<SourceFile>();
    sf->path = rel;
    sf->abs_path = (fs::path(root) / rel).lexically_normal().string();
    sf->kind = classify(fs::path(rel).filename().string(), text.substr(0, 256),
                        fs::path(rel).parent_path().filename().string());
    project.sources.add(std::move(sf));
  }
  project.facts.resize(project.sources.size());
  for (FileId id = 0; id < project.sources.size(); ++id) {
    // The same checks as a file read from disk (NUL bytes, UTF-8, BOM).
    accept_text(project.sources.get_mut(id), project.facts[id], files[id].second);
    if (project.facts[id].loaded) extract_file(project, id);
  }
  return project;
}

}  // namespace trl
