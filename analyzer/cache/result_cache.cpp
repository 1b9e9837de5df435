#include "analyzer/cache/result_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "analyzer/cache/facts_codec.hpp"
#include "analyzer/eval/version_targets.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/util/binary_io.hpp"
#include "analyzer/util/clean_path.hpp"
#include "analyzer/util/parallel.hpp"

namespace trl::cache {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMagic = "TRLCACHE9";
constexpr std::string_view kFactsMagic = "TRLFACTS3";  // 2: YamlNode::exponent_number; 3: Python pools
constexpr std::string_view kPartsMagic = "TRLPARTS2";
constexpr std::uint64_t kSeedA = 0x51ed2701a3c4e5f7ull, kSeedB = 0x2545f4914f6cdd1dull;
constexpr std::uint32_t kNone = 0xffffffffu;

std::string hex(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::optional<std::string> read_whole(const std::string& path, std::size_t limit) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::uint64_t>(st.st_size) > limit)
    return std::nullopt;
  // Read to the end whatever the size said: a file that grew is read whole, up to the limit.
  std::string data(static_cast<std::size_t>(st.st_size) + 1, '\0');
  std::size_t done = 0;
  for (;;) {
    if (done == data.size()) {
      if (data.size() > limit) return std::nullopt;
      data.resize(data.size() * 2);
    }
    const ssize_t got = ::read(fd, data.data() + done, data.size() - done);
    if (got < 0) {
      if (errno == EINTR) continue;
      return std::nullopt;
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  data.resize(done);
  if (data.size() > limit) return std::nullopt;
  return data;
}

void put_span(bin::Writer& w, const Span& s) {
  w.u32(s.file == kNoFile ? kNone : static_cast<std::uint32_t>(s.file));
  put_span_position(w, s);
}

Point point_of(Point p) {
  return p;
}
Point point_of(const std::pair<Point, std::uint32_t>& known) {
  return known.first;
}

Span get_span(bin::Reader& r, const Project& project) {
  Span s;
  std::uint32_t file = r.u32();
  get_span_position(r, s);
  if (file == kNone) return s;
  if (file >= project.sources.size()) bin::Reader::fail();
  s.file = static_cast<FileId>(file);
  // Spans must fit the file as it is now: the formatters index its text and lines with them. A
  // file left unread (its stamp vouched for it) has only the columns of the points recorded
  // with the entry: each point must be one of those.
  const SourceFile& f = project.sources.get(s.file);
  if (f.line_starts.empty() && !f.known_columns.empty()) {
    auto known = [&](Point p) {
      return std::binary_search(f.known_columns.begin(), f.known_columns.end(), p,
                                [](const auto& a, const auto& b) { return point_of(a) < point_of(b); });
    };
    if (s.begin > s.end || s.stop < s.start || !known(s.start) || !known(s.stop)) bin::Reader::fail();
    return s;
  }
  const std::size_t lines = std::max<std::size_t>(f.line_starts.size(), 1);
  if (s.begin > s.end || s.end > f.text.size() || s.start.line >= lines || s.stop.line >= lines || s.stop < s.start)
    bin::Reader::fail();
  return s;
}

// Creates the cache folder, with a .gitignore that ignores everything in it and a CACHEDIR.TAG
// (backup tools skip it), as ruff does.
bool ensure_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir, ec)) return false;
  const fs::path gitignore = fs::path(dir) / ".gitignore";
  if (!fs::exists(gitignore, ec)) {
    std::ofstream(gitignore) << "# Automatically created by trl-lint.\n*\n";
    std::ofstream(fs::path(dir) / "CACHEDIR.TAG") << "Signature: 8a477f597d28d172789f06886806bc55\n"
                                                     "# This file is a cache directory tag created by trl-lint.\n";
  }
  return true;
}

// Writes `parts`, one after the other, to `path` through a temporary file in the same folder and
// a rename, so that a reader sees the old entry or the new one, never a part. (In parts: joining
// a header to megabytes of body first copies them all, and touching that much fresh memory was a
// tenth of a run after one file changed.)
bool write_atomically(const std::string& path, std::initializer_list<std::string_view> parts) {
  static std::atomic<unsigned> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  bool ok = true;
  for (std::string_view data : parts) {
    std::size_t done = 0;
    while (ok && done < data.size()) {
      ssize_t n = ::write(fd, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        ok = false;
      else
        done += static_cast<std::size_t>(n);
    }
  }
  ok = ::close(fd) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace

std::string build_identity() {
  std::string id = "trl-lint " TRL_LINT_VERSION;
  struct stat st {};
  if (::stat("/proc/self/exe", &st) == 0)
    id += " exe " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
          std::to_string(st.st_mtim.tv_nsec);
  return id;
}

std::string encode_diagnostics(const std::vector<Diagnostic>& diags) {
  bin::Writer w;
  w.u32(static_cast<std::uint32_t>(diags.size()));
  for (const auto& d : diags) {
    w.str(d.code);
    w.str(d.name);
    w.u8(static_cast<std::uint8_t>(d.severity));
    w.str(d.message);
    put_span(w, d.span);
    w.str(d.label);
    w.u32(static_cast<std::uint32_t>(d.related.size()));
    for (const auto& r : d.related) {
      put_span(w, r.span);
      w.str(r.message);
      w.u8(r.launch ? 1 : 0);
    }
    w.strings(d.notes);
    w.u8(d.help ? 1 : 0);
    if (d.help) w.str(*d.help);
    w.u32(static_cast<std::uint32_t>(d.fixes.size()));
    for (const auto& f : d.fixes) {
      w.str(f.title);
      w.u8(f.safe ? 1 : 0);
      w.u32(static_cast<std::uint32_t>(f.edits.size()));
      for (const auto& e : f.edits) {
        put_span(w, e.span);
        w.str(e.replacement);
      }
    }
    w.u8(d.merge_key ? 1 : 0);
    if (d.merge_key) w.str(*d.merge_key);
  }
  return std::move(w.out);
}

std::optional<std::vector<Diagnostic>> decode_diagnostics(std::string_view data, const Project& project) {
  try {
    bin::Reader r(data);
    std::vector<Diagnostic> diags(r.count());
    for (auto& d : diags) {
      d.code = r.str();
      d.name = r.str();
      std::uint8_t sev = r.u8();
      if (sev > static_cast<std::uint8_t>(Severity::Info)) bin::Reader::fail();
      d.severity = static_cast<Severity>(sev);
      d.message = r.str();
      d.span = get_span(r, project);
      d.label = r.str();
      d.related.resize(r.count());
      for (auto& rel : d.related) {
        rel.span = get_span(r, project);
        rel.message = r.str();
        rel.launch = r.u8() != 0;
      }
      d.notes = r.strings();
      if (r.u8()) d.help = r.str();
      d.fixes.resize(r.count());
      for (auto& f : d.fixes) {
        f.title = r.str();
        f.safe = r.u8() != 0;
        f.edits.resize(r.count());
        for (auto& e : f.edits) {
          e.span = get_span(r, project);
          e.replacement = r.str();
        }
      }
      if (r.u8()) d.merge_key = r.str();
    }
    if (!r.at_end()) return std::nullopt;
    return diags;
  } catch (const bin::BinaryFormatError&) {
    return std::nullopt;
  }
}

std::int64_t now_ns() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

namespace {

void put_stamp(bin::Writer& w, const FileStamp& s) {
  w.u8(s.valid ? 1 : 0);
  w.u64(s.dev);
  w.u64(s.ino);
  w.u64(s.size);
  w.u64(static_cast<std::uint64_t>(s.mtime_ns));
  w.u64(static_cast<std::uint64_t>(s.ctime_ns));
}

FileStamp get_stamp(bin::Reader& r) {
  FileStamp s;
  s.valid = r.u8() != 0;
  s.dev = r.u64();
  s.ino = r.u64();
  s.size = r.u64();
  s.mtime_ns = static_cast<std::int64_t>(r.u64());
  s.ctime_ns = static_cast<std::int64_t>(r.u64());
  return s;
}

// The file ids the findings point into (primary, related and fix spans).
// The files the findings point into (their own spans, related locations and fix edits), each with
// every point named there: the entry lists those files, read again on a hit to show them, and
// keeps the column shown for each point, so that a hit printed without source lines needs no
// file's text (SourceFile::known_columns).
std::map<FileId, std::set<Point>> shown_points(const std::vector<Diagnostic>& diags) {
  std::map<FileId, std::set<Point>> points;
  auto add = [&](const Span& s) {
    if (!s.valid()) return;
    auto& at = points[s.file];
    at.insert(s.start);
    at.insert(s.stop);
  };
  for (const auto& d : diags) {
    add(d.span);
    for (const auto& r : d.related) add(r.span);
    for (const auto& f : d.fixes)
      for (const auto& e : f.edits) add(e.span);
  }
  return points;
}

}  // namespace

ResultCache::ResultCache(std::string dir, std::string invocation)
    : dir_(std::move(dir)), invocation_(std::move(invocation)) {}

std::string ResultCache::entry_path() const {
  return (fs::path(dir_) / ("results-" + hex(bin::hash64(invocation_)) + ".bin")).string();
}

std::uint64_t ResultCache::frame_digest(const Project& project) const {
  if (frame_) return *frame_;
  // The key without the files' contents and reading outcomes: the files by path and kind, and the
  // settings of every folder (prepare).
  bin::Writer frame;
  frame.str(invocation_);
  frame.str(project.root);
  frame.u32(static_cast<std::uint32_t>(project.sources.size()));
  for (FileId id = 0; id < project.sources.size(); ++id) {
    const SourceFile& f = project.sources.get(id);
    frame.str(f.path);
    frame.str(f.abs_path);
    frame.u8(static_cast<std::uint8_t>(f.kind));
  }
  frame.out += frame_settings_;
  frame_ = bin::hash64(frame.out, kSeedA);
  return *frame_;
}

std::string ResultCache::parts_path() const {
  return (fs::path(dir_) / ("results-" + hex(bin::hash64(invocation_)) + ".parts")).string();
}

void ResultCache::load() {
  tail_ = 0;
  known_.clear();
  known_by_path_.clear();
  known_by_path_made_ = std::make_unique<std::once_flag>();
  probes_hold_.reset();
  auto data = read_whole(entry_path(), std::size_t{256} << 20);
  if (!data) return;
  entry_ = std::move(*data);
  try {
    bin::Reader r(entry_);
    r.expect(kMagic);
    const std::uint64_t checksum = r.u64();
    const std::string_view payload = r.rest();
    if (bin::hash64(payload) != checksum) return;  // truncated or damaged
    bin::Reader p(payload);
    if (p.str() != invocation_) return;  // another invocation with the same slot
    known_since_ns_ = static_cast<std::int64_t>(p.u64());
    std::vector<Record> records;
    const std::uint32_t n = p.count();
    records.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::string_view path = p.str_view();
      KnownFile k;
      k.stamp = get_stamp(p);
      k.content_hash = p.u64();
      const std::uint8_t flags = p.u8();
      k.loaded = flags & 1;
      k.deferred = flags & 2;
      k.conditional = flags & 4;
      for (std::uint32_t m = p.count(); m > 0; --m) {
        std::string code = p.str();
        k.problems.emplace_back(std::move(code), p.str());
      }
      records.push_back({path, std::move(k)});
    }
    known_ = std::move(records);
    tail_ = entry_.size() - p.rest().size();
  } catch (const bin::BinaryFormatError&) {
    known_.clear();
    tail_ = 0;
  }
}

const KnownFile* ResultCache::known(std::size_t id, const std::string& abs_path) const {
  // The records are in the order of the files they were taken of: unless files were added or
  // removed (or some were not stamped), a file's record has its id.
  if (id < known_.size() && known_[id].path == abs_path) return &known_[id].file;
  if (known_.empty()) return nullptr;
  // Otherwise by path: the index is made when first needed (most runs never need it).
  std::call_once(*known_by_path_made_, [this] {
    known_by_path_.reserve(known_.size());
    for (std::uint32_t i = 0; i < known_.size(); ++i) known_by_path_.emplace(known_[i].path, i);
  });
  const auto it = known_by_path_.find(abs_path);
  return it == known_by_path_.end() ? nullptr : &known_[it->second].file;
}

bool ResultCache::has_entry() const {
  struct stat st;
  return ::stat(entry_path().c_str(), &st) == 0;
}

void ResultCache::prepare(const Project& project, Configuration& config) {
  const std::size_t n = project.sources.size();
  bin::Writer key;
  std::size_t size = invocation_.size() + project.root.size() + 64;
  for (FileId id = 0; id < n; ++id)
    size += project.sources.get(id).path.size() + project.sources.get(id).abs_path.size() + 32;
  key.out.reserve(size);  // grown once (it is megabytes at 20,000 files)
  key.str(invocation_);
  key.str(project.root);
  key.u32(static_cast<std::uint32_t>(n));
  // The frame's part of the settings (the frame is made on a miss only: frame_digest).
  bin::Writer frame;
  frame_.reset();
  deferred_.assign(n, 0);
  std::set<std::string> dirs;
  // Files come folder by folder: most have the folder of the one before (none before the first).
  std::optional<std::string_view> last_dir;
  for (FileId id = 0; id < n; ++id) {
    const SourceFile& f = project.sources.get(id);
    const FileFacts& facts = project.facts[id];
    key.str(f.path);
    key.str(f.abs_path);
    key.u8(static_cast<std::uint8_t>(f.kind));
    key.u8(static_cast<std::uint8_t>((facts.loaded ? 1 : 0) | (facts.deferred ? 2 : 0) | (facts.conditional ? 4 : 0)));
    key.u32(static_cast<std::uint32_t>(facts.problems.size()));
    for (const auto& p : facts.problems) {
      key.str(p.code);
      key.str(p.message);
    }
    deferred_[id] = facts.deferred;
    // A deferred file's text counts only if something reaches it (checked in lookup).
    key.u64(facts.deferred ? 0 : facts.content_hash);
    if (f.abs_path.rfind("<skipped>/", 0) != 0) {
      const std::string_view dir = folder_view(f.abs_path);
      if (dir != last_dir) last_dir = std::string_view(*dirs.emplace(dir).first);
    }
  }
  // The libraries installed in each project folder's environment (version_targets reads them
  // before the pins; the environment's files are not project files), and how it was chosen.
  // Part of the frame too: kept runs were judged against them.
  for (const auto& root : project.roots.empty() ? std::vector<std::string>{project.root} : project.roots) {
    const std::vector<std::string> installed = installed_libraries(project, root);
    key.strings(installed);
    frame.strings(installed);
  }
  // The settings of every folder: which configuration files govern it, and their contents.
  std::set<std::string> config_files;
  for (const auto& d : dirs) {
    const Settings& s = config.for_folder(d);
    key.str(d);
    key.strings(s.files);
    frame.str(d);
    frame.strings(s.files);
    config_files.insert(s.files.begin(), s.files.end());
  }
  for (const auto& c : config_files) {
    key.str(c);
    frame.str(c);
    auto text = read_whole(c, std::size_t{64} << 20);
    key.u64(text ? bin::hash64(*text) : 0);
    frame.u64(text ? bin::hash64(*text) : 0);
  }
  digest_[0] = bin::hash64(key.out, kSeedA);
  digest_[1] = bin::hash64(key.out, kSeedB);
  frame_settings_ = std::move(frame.out);
}

bool ResultCache::probes_hold() const {
  if (probes_hold_) return *probes_hold_;
  probes_hold_ = false;
  if (!tail_) return false;
  try {
    bin::Reader p(std::string_view(entry_).substr(tail_));
    std::vector<DiskProbe> probes(p.count());
    bool hold = true;
    for (DiskProbe& q : probes) {
      q.path = p.str();
      q.ext = p.str();
      const std::uint8_t flags = p.u8();
      q.holds = flags & 2;
      q.answer = flags & 1;
      // Asked again in full (no early return): a miss carries none of them over anyway.
      hold = hold && ask_disk(q) == q.answer;
    }
    probes_end_ = entry_.size() - p.rest().size();
    old_probes_ = std::move(probes);
    probes_hold_ = hold;
  } catch (const bin::BinaryFormatError&) {
    probes_hold_ = false;
  }
  return *probes_hold_;
}

std::optional<std::vector<Diagnostic>> ResultCache::lookup(Project& project, const LoadOptions& options,
                                                           std::size_t* runs, bool texts_needed) const {
  if (!tail_ || !probes_hold()) return std::nullopt;
  try {
    bin::Reader p(std::string_view(entry_).substr(probes_end_));
    if (p.u64() != digest_[0] || p.u64() != digest_[1]) return std::nullopt;
    // The JSON files Python code named: the same bytes (0: could not be read then, nor now). They
    // join the project under the ids they had, since findings may point into them.
    for (std::uint32_t k = p.count(); k > 0; --k) {
      const std::uint32_t id = p.u32();
      const std::string path = p.str();
      const std::uint64_t h = p.u64();
      const auto bytes = read_whole(path, std::size_t{256} << 20);
      if ((bytes ? bin::hash64(*bytes) : 0) != h) return std::nullopt;
      if (add_json_file(project, path, options.max_file_size) != id) return std::nullopt;
    }
    // The deferred files that were reached: same texts, or the runs they are part of changed.
    for (std::uint32_t k = p.count(); k > 0; --k) {
      const std::uint32_t id = p.u32();
      const std::uint64_t h = p.u64();
      if (id >= project.sources.size() || !deferred_[id]) return std::nullopt;
      if (project.facts[id].content_hash != h) return std::nullopt;
    }
    // The files the findings point into are read now, to show them; their contents must be the
    // ones the key was computed with. Printed without source lines (texts_needed false), a file
    // whose stamp vouched for it stays unread: its recorded columns are all the output needs.
    std::vector<FileId> shown;
    // The columns given to unread files stand only if the findings are served: any miss below
    // takes them back (an analysis follows, which must not see them).
    struct GivenColumns {
      std::vector<SourceFile*> files;
      bool served = false;
      ~GivenColumns() {
        if (!served)
          for (SourceFile* f : files) f->known_columns.clear();
      }
    } given_columns;
    for (std::uint32_t k = p.count(); k > 0; --k) {
      const std::uint32_t id = p.u32();
      if (id >= project.sources.size()) return std::nullopt;
      std::vector<std::pair<Point, std::uint32_t>> columns;
      const bool has_columns = p.u8() != 0;
      if (has_columns)
        for (std::uint32_t m = p.count(); m > 0; --m) {
          Point at;
          at.line = p.u32();
          at.column = p.u32();
          columns.emplace_back(at, p.u32());
        }
      SourceFile& file = project.sources.get_mut(static_cast<FileId>(id));
      if (!texts_needed && has_columns && project.facts[id].unread && file.line_starts.empty()) {
        file.known_columns = std::move(columns);
        given_columns.files.push_back(&file);
        continue;
      }
      shown.push_back(static_cast<FileId>(id));
    }
    std::vector<std::uint64_t> expected;
    expected.reserve(shown.size());
    for (FileId id : shown) expected.push_back(project.facts[id].content_hash);
    read_unread(project, options, &shown);
    for (std::size_t k = 0; k < shown.size(); ++k)
      if (project.facts[shown[k]].content_hash != expected[k]) return std::nullopt;
    const std::uint32_t size = p.u32();
    const std::string_view diags = p.rest().substr(0, size);
    p.skip(size);
    const std::uint32_t judged = p.u32();
    auto decoded = decode_diagnostics(diags, project);
    if (decoded && runs) *runs = judged;
    given_columns.served = decoded.has_value();
    return decoded;
  } catch (const bin::BinaryFormatError&) {
    return std::nullopt;
  }
}

namespace {
// The parts of an analysis, after its findings in the entry (kept_parts reads them).
void encode_parts(bin::Writer& p, const Project& project, std::uint64_t frame, const JudgedParts& parts);
}  // namespace

bool ResultCache::store(const Project& project, const std::vector<Diagnostic>& diags, std::int64_t read_start_ns,
                        const JudgedParts* parts, std::size_t runs) const {
  // JSON configurations named by Python code are read from outside the discovered files: which
  // names found a file is among the disk probes below, and each file read is recorded with the
  // hash of its bytes, which lookup checks.
  // A file parsed without the check in another process was skipped for a reason of this
  // machine's (ts::unchecked_parses): the next run may parse it.
  for (const FileFacts& f : project.facts)
    if (f.transient) return false;
  bin::Writer p;
  p.str(invocation_);
  p.u64(static_cast<std::uint64_t>(read_start_ns));
  // Every file with a stamp, the ones still unread included (deferred Python files nothing
  // reached): their records were checked against their stamps when this run began, and are
  // carried over.
  std::uint32_t count = 0;
  for (FileId id = 0; id < project.sources.size(); ++id)
    if (project.facts[id].stamp.valid) ++count;
  p.u32(count);
  for (FileId id = 0; id < project.sources.size(); ++id) {
    const FileFacts& f = project.facts[id];
    if (!f.stamp.valid) continue;
    p.str(project.sources.get(id).abs_path);
    put_stamp(p, f.stamp);
    p.u64(f.content_hash);
    // What reading decided: after extraction a deferred file may be parsed (reached), but it
    // was deferred when read, which is what read_project decides again.
    p.u8(static_cast<std::uint8_t>((f.loaded ? 1 : 0) | (id < deferred_.size() && deferred_[id] ? 2 : 0) |
                                   (f.conditional ? 4 : 0)));
    // Reading problems only (no extraction problems): those have no position.
    std::vector<const FileProblem*> reading;
    if (!f.loaded)
      for (const auto& pr : f.problems) reading.push_back(&pr);
    p.u32(static_cast<std::uint32_t>(reading.size()));
    for (const FileProblem* pr : reading) {
      p.str(pr->code);
      p.str(pr->message);
    }
  }
  // The questions the analysis asked the file system, with their answers (DiskProbe). After runs
  // were kept from the parts (kept_parts), their questions were not asked again: the entry's still
  // stand for them (they held, or nothing would have been kept).
  std::vector<DiskProbe> probes;
  if (project.disk_probes) probes = project.disk_probes->list();
  if (parts_kept_) {
    probes.insert(probes.end(), old_probes_.begin(), old_probes_.end());
    std::sort(probes.begin(), probes.end());
    probes.erase(std::unique(probes.begin(), probes.end()), probes.end());
  }
  p.u32(static_cast<std::uint32_t>(probes.size()));
  for (const DiskProbe& q : probes) {
    p.str(q.path);
    p.str(q.ext);
    p.u8(static_cast<std::uint8_t>((q.answer ? 1 : 0) | (q.holds ? 2 : 0)));
  }
  p.u64(digest_[0]);
  p.u64(digest_[1]);
  std::vector<FileId> json;
  for (FileId id = 0; id < project.sources.size(); ++id)
    if (project.sources.get(id).kind == FileKind::Json) json.push_back(id);
  p.u32(static_cast<std::uint32_t>(json.size()));
  for (FileId id : json) {
    const SourceFile& f = project.sources.get(id);
    const auto bytes = read_whole(f.abs_path, std::size_t{256} << 20);
    p.u32(static_cast<std::uint32_t>(id));
    p.str(f.abs_path);
    p.u64(bytes ? bin::hash64(*bytes) : 0);
  }
  std::vector<std::pair<std::uint32_t, std::uint64_t>> reached;
  for (FileId id = 0; id < project.sources.size() && id < deferred_.size(); ++id) {
    const FileFacts& f = project.facts[id];
    if (deferred_[id] && (f.extracted || !f.deferred || f.consulted))
      reached.emplace_back(static_cast<std::uint32_t>(id), f.content_hash);
  }
  p.u32(static_cast<std::uint32_t>(reached.size()));
  for (const auto& [id, h] : reached) {
    p.u32(id);
    p.u64(h);
  }
  const auto shown = shown_points(diags);
  p.u32(static_cast<std::uint32_t>(shown.size()));
  for (const auto& [id, at] : shown) {
    p.u32(static_cast<std::uint32_t>(id));
    // The columns of the points in it, computed from its text; with a flag: 0 when its text was
    // not at hand (a file without a line index: unread, or unreadable).
    const SourceFile* f = id < project.sources.size() ? &project.sources.get(id) : nullptr;
    const bool has_columns = f && !f->line_starts.empty();
    p.u8(has_columns ? 1 : 0);
    if (!has_columns) continue;
    p.u32(static_cast<std::uint32_t>(at.size()));
    for (const Point& point : at) {
      p.u32(point.line);
      p.u32(point.column);
      p.u32(f->display_column(point));
    }
  }
  p.str(encode_diagnostics(diags));
  p.u32(static_cast<std::uint32_t>(runs));
  bin::Writer head;
  head.out.append(kMagic);
  head.u64(bin::hash64(p.out));
  if (!ensure_dir(dir_)) return false;
  // The parts file must be this entry's: an older one (its write below failed, or this run stores
  // none) would be judged with the questions of another analysis.
  std::error_code ec;
  fs::remove(parts_path(), ec);
  if (!write_atomically(entry_path(), {head.out, p.out})) return false;
  // The parts, in a file of their own: a hit does not read them. Written after the entry (the
  // entry's pruning removes them with it); an older parts file left by a failed write is still
  // sound: it records the files it was judged from, and kept_parts compares them with these.
  // Not for an analysis that read JSON files Python code names: the parts record no such file, so
  // a changed JSON file would not show which runs read it.
  if (parts && !names_json_files(project)) {
    bin::Writer q;
    q.str(invocation_);
    encode_parts(q, project, frame_digest(project), *parts);
    bin::Writer qhead;
    qhead.out.append(kPartsMagic);
    qhead.u64(bin::hash64(q.out));
    write_atomically(parts_path(), {qhead.out, q.out});
  }
  prune_entries(dir_, fs::path(entry_path()).filename().string(), now_ns());
  return true;
}

namespace {

// A file as the parts saw it: its contents, whether it was read and parsed (a module the
// pre-filter deferred is parsed when an import chain through other files reaches a training
// module: it becomes a script to judge without a change of its own), and whether it holds version
// pins.
std::uint8_t file_state(const FileFacts& f) {
  return static_cast<std::uint8_t>((f.loaded ? 1 : 0) | (f.extracted ? 2 : 0));
}
// Pins, or `-r`/`-c` includes of other requirements files (which pins_of follows).
bool holds_pins(const FileFacts& f) {
  return !f.pins.empty() || !f.pin_includes.empty();
}
void put_file_state(bin::Writer& w, const FileFacts& f) {
  w.u64(f.content_hash);
  w.u8(static_cast<std::uint8_t>(file_state(f) | (holds_pins(f) ? 4 : 0)));
}

void put_ids(bin::Writer& w, const std::vector<FileId>& ids) {
  w.u32(static_cast<std::uint32_t>(ids.size()));
  for (FileId id : ids) w.u32(static_cast<std::uint32_t>(id));
}

std::vector<FileId> get_ids(bin::Reader& r, std::size_t files) {
  std::vector<FileId> ids(r.count());
  for (auto& id : ids) {
    const std::uint32_t v = r.u32();
    if (v >= files) bin::Reader::fail();
    id = static_cast<FileId>(v);
  }
  return ids;
}

FileId get_file_or_none(bin::Reader& r, std::size_t files) {
  const std::uint32_t v = r.u32();
  if (v == kNone) return kNoFile;
  if (v >= files) bin::Reader::fail();
  return static_cast<FileId>(v);
}

void encode_parts(bin::Writer& p, const Project& project, std::uint64_t frame, const JudgedParts& parts) {
  p.u64(frame);
  p.u32(static_cast<std::uint32_t>(project.facts.size()));
  for (const FileFacts& f : project.facts) put_file_state(p, f);
  p.u32(static_cast<std::uint32_t>(parts.runs.size()));
  for (const JudgedRun& r : parts.runs) {
    p.u8(static_cast<std::uint8_t>(r.origin.kind));
    p.u32(r.origin.file == kNoFile ? kNone : static_cast<std::uint32_t>(r.origin.file));
    p.u64(r.origin.index);
    p.u32(r.script == kNoFile ? kNone : static_cast<std::uint32_t>(r.script));
    put_ids(p, r.files);
    p.u32(r.accelerate_yaml == kNoFile ? kNone : static_cast<std::uint32_t>(r.accelerate_yaml));
    p.u64(r.use.doc);
    p.u8(static_cast<std::uint8_t>((r.use.sets_num_processes ? 1 : 0) | (r.use.sets_mixed_precision ? 2 : 0)));
    p.str(encode_diagnostics(r.diags));
  }
  put_ids(p, parts.imported);
  p.u32(static_cast<std::uint32_t>(parts.scripts.size()));
  for (const JudgedScript& s : parts.scripts) {
    p.u32(static_cast<std::uint32_t>(s.script));
    put_ids(p, s.read);
    p.str(encode_diagnostics(s.diags));
  }
}

}  // namespace

std::optional<ResultCache::Kept> ResultCache::kept_parts(const Project& project) const {
  const std::size_t n = project.sources.size();
  // A file outside the project appeared or disappeared: any run may have asked about it.
  if (!probes_hold()) return std::nullopt;
  auto data = read_whole(parts_path(), std::size_t{256} << 20);
  if (!data) return std::nullopt;
  try {
    bin::Reader whole(*data);
    whole.expect(kPartsMagic);
    const std::uint64_t checksum = whole.u64();
    if (bin::hash64(whole.rest()) != checksum) return std::nullopt;  // truncated or damaged
    bin::Reader p(whole.rest());
    if (p.str() != invocation_) return std::nullopt;  // another invocation with the same slot
    if (p.u64() != frame_digest(project) || p.u32() != n) return std::nullopt;
    Kept kept;
    kept.changed.assign(n, 0);
    for (FileId id = 0; id < n; ++id) {
      const std::uint64_t hash = p.u64();
      const std::uint8_t flags = p.u8();
      const FileFacts& f = project.facts[id];
      kept.changed[id] = hash != f.content_hash || (flags & 3) != file_state(f);
      if (!kept.changed[id]) continue;
      // Pins set the versions of every run below their folder, and are in no run's files.
      if ((flags & 4) || holds_pins(f)) return std::nullopt;
      // A module that could not be read is in no script's modules (the import of it is recorded
      // nowhere): once readable, or no longer, any script may read it.
      if (bool(flags & 1) != f.loaded) return std::nullopt;
    }
    // The findings of a part that read no changed file point into unchanged files, where their
    // spans still fit. A part that read one is judged again (rejudge): its findings, whose spans
    // may no longer fit, are not decoded.
    auto changed = [&](FileId id) { return id != kNoFile && kept.changed[id]; };
    auto diags = [&](bin::Reader& r, bool touched) {
      const std::string data = r.str();
      if (touched) return std::vector<Diagnostic>{};
      auto d = decode_diagnostics(data, project);
      if (!d) bin::Reader::fail();
      return std::move(*d);
    };
    for (std::uint32_t k = p.count(); k > 0; --k) {
      JudgedRun r;
      const std::uint8_t kind = p.u8();
      if (kind > static_cast<std::uint8_t>(RunOrigin::Kind::Script)) bin::Reader::fail();
      r.origin.kind = static_cast<RunOrigin::Kind>(kind);
      r.origin.file = get_file_or_none(p, n);
      r.origin.index = p.u64();
      r.script = get_file_or_none(p, n);
      r.files = get_ids(p, n);
      r.accelerate_yaml = get_file_or_none(p, n);
      r.use.doc = p.u64();
      const std::uint8_t use = p.u8();
      r.use.sets_num_processes = use & 1;
      r.use.sets_mixed_precision = use & 2;
      r.diags = diags(p, (r.origin.kind != RunOrigin::Kind::Declared && changed(r.origin.file)) ||
                             std::any_of(r.files.begin(), r.files.end(), changed));
      kept.parts.runs.push_back(std::move(r));
    }
    kept.parts.imported = get_ids(p, n);
    for (std::uint32_t k = p.count(); k > 0; --k) {
      JudgedScript s;
      s.script = get_file_or_none(p, n);
      if (s.script == kNoFile) bin::Reader::fail();
      s.read = get_ids(p, n);
      s.diags = diags(p, changed(s.script) || std::any_of(s.read.begin(), s.read.end(), changed));
      kept.parts.scripts.push_back(std::move(s));
    }
    if (!p.at_end()) return std::nullopt;
    parts_kept_ = true;
    return kept;
  } catch (const bin::BinaryFormatError&) {
    return std::nullopt;
  }
}

bool is_entry_name(std::string_view name) {
  constexpr std::string_view prefix = "results-", suffix = ".bin";
  if (name.size() != prefix.size() + 16 + suffix.size() || name.substr(0, prefix.size()) != prefix ||
      name.substr(name.size() - suffix.size()) != suffix)
    return false;
  for (char c : name.substr(prefix.size(), 16))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::size_t prune_entries(const std::string& dir, const std::string& keep, std::int64_t now) {
  struct Entry {
    std::int64_t mtime;
    std::string name;
  };
  std::vector<Entry> entries;
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const bool entry = is_entry_name(name);
    // A temporary file a killed run left behind (`<name>.tmp.<pid>.<n>`, see write_atomically).
    const auto tmp_at = name.find(".tmp.");
    const std::string_view stem = std::string_view(name).substr(0, tmp_at == std::string::npos ? 0 : tmp_at);
    const bool parts_tmp =
        stem.ends_with(".parts") && is_entry_name(std::string(stem.substr(0, stem.size() - 6)) + ".bin");
    const bool tmp = tmp_at != std::string::npos && (is_entry_name(stem) || stem == "facts.bin" || parts_tmp);
    if (!entry && !tmp) continue;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const std::int64_t mtime = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    if (tmp) {
      if (now - mtime > kStaleTemporaryNs && ::unlink(it->path().c_str()) == 0) ++removed;
      continue;
    }
    entries.push_back({mtime, name});
  }
  if (entries.size() <= kKeptEntries) return removed;
  // `keep` first whatever its time (a coarse clock could tie it with older ones), then newest first.
  std::sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    if ((a.name == keep) != (b.name == keep)) return a.name == keep;
    return a.mtime != b.mtime ? a.mtime > b.mtime : a.name < b.name;
  });
  for (std::size_t i = kKeptEntries; i < entries.size(); ++i) {
    if (::unlink((fs::path(dir) / entries[i].name).c_str()) == 0) ++removed;
    // Its parts (results-<hex>.parts) go with it.
    const std::string parts = entries[i].name.substr(0, entries[i].name.size() - 4) + ".parts";
    if (::unlink((fs::path(dir) / parts).c_str()) == 0) ++removed;
  }
  return removed;
}

std::string ResultCache::facts_path() const {
  return (fs::path(dir_) / "facts.bin").string();
}

namespace {

// What a file's facts depend on besides its path, kind and contents: the extractors (this build)
// and the embedded knowledge. Not the options of an invocation, so one pack serves them all
// (pre-commit names other files at each commit; every such run parses the same project).
//
// Also the device and inode of the cache folder: decoded facts go to the evaluator, which trusts
// their structure as it trusts the extractors', so only a pack written into this very folder is
// read. A pack committed to a repository (or restored from an archive) lands in a folder with
// another inode and is ignored; the next miss writes a new one. Empty when the folder is absent.
std::string facts_identity(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return {};
  return build_identity() + "\nknowledge " + std::to_string(Knowledge::embedded_version()) + "\nfolder " +
         std::to_string(st.st_dev) + " " + std::to_string(st.st_ino);
}

}  // namespace

// The pack: magic, checksum of the rest, the facts identity, then per file its absolute path,
// kind, content hash and encoded facts (encode_facts).
std::size_t ResultCache::take_facts(Project& project, unsigned threads) {
  taken_.clear();
  auto data = read_whole(facts_path(), std::size_t{1} << 30);
  if (!data) return 0;
  pack_ = std::move(*data);
  struct Record {
    std::uint8_t kind;
    std::uint64_t hash;
    std::string_view facts;
  };
  std::unordered_map<std::string_view, Record> records;
  try {
    bin::Reader r(pack_);
    r.expect(kFactsMagic);
    const std::uint64_t checksum = r.u64();
    const std::string_view payload = r.rest();
    if (bin::hash64(payload) != checksum) return 0;
    bin::Reader p(payload);
    const std::string identity = facts_identity(dir_);
    if (identity.empty() || p.str() != identity) return 0;
    // The views below point into pack_, which lives as long as this cache.
    for (std::uint32_t n = p.count(); n > 0; --n) {
      const std::uint32_t path_size = p.u32();
      const std::string_view rest = p.rest();
      if (path_size > rest.size()) bin::Reader::fail();
      const std::string_view path = rest.substr(0, path_size);
      p.skip(path_size);
      Record rec{};
      rec.kind = p.u8();
      rec.hash = p.u64();
      const std::uint32_t size = p.u32();
      if (size > p.rest().size()) bin::Reader::fail();
      rec.facts = p.rest().substr(0, size);
      p.skip(size);
      records.emplace(path, rec);
    }
  } catch (const bin::BinaryFormatError&) {
    return 0;
  }
  std::vector<FileId> ids;
  taken_.assign(project.sources.size(), {});
  for (FileId id = 0; id < project.sources.size(); ++id) {
    const FileFacts& f = project.facts[id];
    if (!f.loaded || f.deferred || f.extracted || f.unread) continue;
    const SourceFile& file = project.sources.get(id);
    auto it = records.find(file.abs_path);
    if (it == records.end() || it->second.kind != static_cast<std::uint8_t>(file.kind) ||
        it->second.hash != f.content_hash)
      continue;
    ids.push_back(id);
    taken_[id] = it->second.facts;
  }
  // Decoded on every core: each file's facts are its own (a fifth of a run after one file of
  // 20,000 changed, on one core).
  std::atomic<std::size_t> taken{0};
  parallel_for(ids.size(), threads, [&](std::size_t k) {
    const FileId id = ids[k];
    if (decode_facts(taken_[id], id, project.facts[id]))
      ++taken;
    else
      taken_[id] = {};  // damaged: the file is parsed, and its facts encoded afresh
  });
  return taken;
}

bool ResultCache::store_facts(const Project& project) const {
  if (!ensure_dir(dir_)) return false;
  const std::string identity = facts_identity(dir_);
  if (identity.empty()) return false;
  bin::Writer p;
  p.out.reserve(pack_.size() + (std::size_t{1} << 16));  // about the size of the pack read: grown once
  p.str(identity);
  std::uint32_t count = 0;
  for (FileId id = 0; id < project.sources.size(); ++id) {
    const FileFacts& f = project.facts[id];
    if (f.stamp.valid && f.loaded && f.extracted && !f.deferred && !f.transient) ++count;
  }
  p.u32(count);
  for (FileId id = 0; id < project.sources.size(); ++id) {
    const FileFacts& f = project.facts[id];
    if (!(f.stamp.valid && f.loaded && f.extracted && !f.deferred && !f.transient)) continue;
    const SourceFile& file = project.sources.get(id);
    p.str(file.abs_path);
    p.u8(static_cast<std::uint8_t>(file.kind));
    p.u64(f.content_hash);
    // Facts decoded from the pack are written back as they were read (encoding the facts of
    // every unchanged file again was a sixth of a run after one file of 20,000 changed).
    if (id < taken_.size() && !taken_[id].empty())
      p.str(taken_[id]);
    else
      p.str(encode_facts(f));
  }
  bin::Writer head;
  head.out.append(kFactsMagic);
  head.u64(bin::hash64(p.out));
  return write_atomically(facts_path(), {head.out, p.out});
}

}  // namespace trl::cache
