// Reads a project: the files discovery lists (or an overlay's text, or the result cache's record
// of an unchanged file), with the checks every later stage relies on (size, NUL bytes, UTF-8,
// byte order mark); the project's queries of the disk; and the edits of one file (new text,
// reload). Extraction is project_extract.cpp's.
#include "analyzer/project/project.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <filesystem>
#include <optional>

#include "analyzer/discover/discover.hpp"
#include "analyzer/project/prefilter.hpp"
#include "analyzer/project/project_internal.hpp"
#include "analyzer/util/binary_io.hpp"
#include "analyzer/util/clean_path.hpp"
#include "analyzer/util/parallel.hpp"
#include "rules/tool/tool_rules.hpp"

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
    facts.problems.push_back({tool_rules::kFileTooLarge, "file is 4 GB or more; skipped", Span{file.id}});
    return;
  }
  if (text.find('\0') != std::string::npos) {
    facts.problems.push_back({tool_rules::kNotUtf8Text, "file contains NUL bytes (binary?); skipped", Span{file.id}});
    return;
  }
  if (!is_valid_utf8(text)) {
    facts.problems.push_back({tool_rules::kNotUtf8Text, "file is not valid UTF-8; skipped", Span{file.id}});
    return;
  }
  // A UTF-8 byte order mark is not part of the content (Python and PyYAML skip it).
  file.bom = text.rfind("\xEF\xBB\xBF", 0) == 0;
  if (file.bom) text.replace(0, 3, "   ");
  file.text = std::move(text);
  file.index_lines();
  facts.loaded = true;
}

namespace project_detail {

void read_file(SourceFile& file, FileFacts& facts, std::uint64_t max_size) {
  auto too_big = [&](std::uint64_t size) {
    facts.problems.push_back({tool_rules::kFileTooLarge,
                              "file is " + std::to_string(size >> 20) + " MB, over the " +
                                  std::to_string(max_size >> 20) + " MB limit (--max-file-size); skipped",
                              Span{file.id}});
  };
  // O_NONBLOCK: a file replaced by a FIFO since discovery must not block the open.
  const int fd = ::open(file.abs_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    struct stat st {};
    if (::stat(file.abs_path.c_str(), &st) != 0) {
      facts.problems.push_back({tool_rules::kUnreadableFile,
                                "cannot read file: " + std::error_code(errno, std::system_category()).message(),
                                Span{file.id}});
    } else if (static_cast<std::uint64_t>(st.st_size) > max_size) {
      too_big(static_cast<std::uint64_t>(st.st_size));
    } else {
      facts.problems.push_back(
          {tool_rules::kUnreadableFile, "cannot read file: permission denied or vanished", Span{file.id}});
    }
    return;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    facts.problems.push_back({tool_rules::kUnreadableFile,
                              "cannot read file: " + std::error_code(errno, std::system_category()).message(),
                              Span{file.id}});
    return;
  }
  if (!S_ISREG(st.st_mode)) {
    facts.problems.push_back(
        {tool_rules::kUnreadableFile, "not a regular file (FIFO, socket or device); skipped", Span{file.id}});
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
      facts.problems.push_back({tool_rules::kUnreadableFile, "cannot read file: read error", Span{file.id}});
      return;
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  text.resize(done);
  accept_text(file, facts, std::move(text));
}

void record_internal_error(Project& project, std::size_t i, const std::exception& e) {
  // A defect of ours on one file must not stop the others.
  project.facts[i] = FileFacts{};
  project.facts[i].problems.push_back({tool_rules::kUnreadableFile,
                                       std::string("internal error while reading: ") + e.what(),
                                       Span{static_cast<FileId>(i)}});
}

}  // namespace project_detail

using project_detail::read_file;
using project_detail::record_internal_error;

namespace {

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
  // With the cache's records, the walk takes each file's stamp while it has the folder open.
  Discovery d = discover(options.paths, options.excluded, options.threads, options.listed, bool(options.known));
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
  // By file id: the stamps the walk took (with the cache's records; invalid where the walk could
  // not ask, and the file is then read).
  std::vector<FileStamp> listed_stamps;
  listed_stamps.reserve(d.files.size());
  for (auto& f : d.files) {
    listed_stamps.push_back(f.stamp);
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
    project.facts[id].problems.push_back({tool_rules::kUnreadableFile, message, Span{id}});
  }
  // 0 (nothing is older than a second before it): no record is taken.
  const std::int64_t known_since_ns = options.known_since_ns ? options.known_since_ns() : 0;
  if (options.overlay) project.overlay_file = overlay_target(project, *options.overlay);
  std::map<FileId, const std::string*> overlay_text;
  if (options.overlay) overlay_text[project.overlay_file] = &options.overlay->text;
  for (const auto& o : options.overlays) overlay_text[overlay_target(project, o)] = &o.text;
  auto read_or_vouch = [&](std::size_t i) {
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
      if (const KnownFile* k = options.known(i, file.abs_path)) {
        const FileStamp now = i < listed_stamps.size() ? listed_stamps[i] : FileStamp{};
        if (now.valid && now == k->stamp && now.mtime_ns < known_since_ns - 1000000000 &&
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
    read_one(project, i, options, nullptr);
  };
  parallel_for(project.sources.size(), options.threads, read_or_vouch);
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

Project load_project(const LoadOptions& options) {
  Project project = read_project(options);
  extract_project(project, options);
  return project;
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

namespace {
void extract_guarded(Project& project, FileId id) {
  try {
    if (project.facts[id].loaded) extract_file(project, id);
  } catch (const std::exception& e) {
    project.facts[id] = FileFacts{};
    project.facts[id].problems.push_back(
        {tool_rules::kUnreadableFile, std::string("internal error while reading: ") + e.what(), Span{id}});
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
