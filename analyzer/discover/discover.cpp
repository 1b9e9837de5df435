#include "analyzer/discover/discover.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

#include "analyzer/discover/gitignore.hpp"
#include "analyzer/util/parallel.hpp"

namespace fs = std::filesystem;

namespace trl {

// Virtual environments and cache folders also mark themselves, with a pyvenv.cfg or a
// CACHEDIR.TAG inside: that is seen in their own listing (FolderWalk::walk), which spares two
// failing stats per folder.
bool skipped_dir(const std::string& name) {
  static const std::set<std::string> names = {".git",          ".hg",         ".svn",           "node_modules",
                                              "__pycache__",   ".venv",       "venv",           ".tox",
                                              ".nox",          ".mypy_cache", ".pytest_cache",  ".ruff_cache",
                                              ".eggs",         "build",       "dist",           ".ipynb_checkpoints",
                                              "site-packages", ".cache",      ".trl-lint_cache"};
  return names.count(name) != 0;
}

namespace {

// The first `n` bytes of a file ("" when it cannot be opened), read in small steps: most files
// asked for (.gitignore of every folder) are absent or short.
std::string read_head(const fs::path& p, std::size_t n) {
  std::ifstream in(p, std::ios::binary);
  std::string s;
  if (!in) return s;
  char buf[4096];
  while (s.size() < n && in.read(buf, static_cast<std::streamsize>(std::min(sizeof buf, n - s.size())))) {
    s.append(buf, static_cast<std::size_t>(in.gcount()));
  }
  if (s.size() < n) s.append(buf, static_cast<std::size_t>(in.gcount()));
  return s;
}

// Whether `a` is strictly below the working folder `c` with no hidden part after it: then its
// display path is the text after `c` and its slash, with no fs::path arithmetic.
bool plainly_below(const std::string& a, const std::string& c) {
  return !c.empty() && c != "/" && a.size() > c.size() + 1 && a.compare(0, c.size(), c) == 0 && a[c.size()] == '/' &&
         a.find("/.", c.size()) == std::string::npos;
}

// `abs` as users see it: relative to the working folder `cwd` (empty when unknown), lexically —
// fs::relative would resolve symlinks, showing a link by its target's path.
std::string display_path(const std::string& a, const fs::path& cwd) {
  if (plainly_below(a, cwd.native())) return a.substr(cwd.native().size() + 1);
  const fs::path abs(a);
  fs::path rel = cwd.empty() ? fs::path() : abs.lexically_relative(cwd);
  return rel.empty() ? abs.generic_string() : rel.generic_string();
}

// What an errno value says, as std::filesystem words its errors.
std::string errno_message(int error) {
  return std::error_code(error, std::generic_category()).message();
}

// Why a path that exists cannot be read as a text file, or "" when it can be tried.
std::string not_readable_reason(const fs::path& p) {
  std::error_code ec;
  auto st = fs::status(p, ec);
  if (ec == std::errc::too_many_symbolic_link_levels) return "symlink loop; skipped";
  if (!fs::exists(st)) return "dangling symlink (its target does not exist); skipped";
  if (fs::is_regular_file(st)) return "";
  return "not a regular file (FIFO, socket or device); skipped";
}

bool inside(const fs::path& child, const fs::path& root) {
  auto c = child.begin(), r = root.begin();
  for (; r != root.end(); ++r, ++c) {
    if (c == child.end() || *c != *r) return false;
  }
  return true;
}

}  // namespace

// The last part of a folder path ("/a/requirements" -> "requirements").
static std::string_view folder_name(std::string_view dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
  const auto slash = dir.rfind('/');
  return slash == std::string_view::npos ? dir : dir.substr(slash + 1);
}

FileKind classify(const std::string& name, std::string_view head, std::string_view folder) {
  auto ends = [&](std::string_view suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends(".py")) return FileKind::Python;
  if (ends(".yaml") || ends(".yml")) return FileKind::Yaml;
  if (ends(".sh") || ends(".bash") || ends(".slurm") || ends(".sbatch")) return FileKind::Shell;
  if (ends(".md") || ends(".markdown")) return FileKind::Markdown;
  if (ends(".ipynb")) return FileKind::Notebook;
  if (name == "Makefile" || name == "makefile" || name == "GNUmakefile" || ends(".mk")) return FileKind::Makefile;
  if (name == "pyproject.toml") return FileKind::Toml;
  if (name == "setup.cfg") return FileKind::SetupCfg;
  if ((name.rfind("requirements", 0) == 0 || name.rfind("constraints", 0) == 0 || folder == "requirements") &&
      ends(".txt"))
    return FileKind::Requirements;
  if (name.find('.') == std::string::npos && head.rfind("#!", 0) == 0) {
    std::string_view line = head.substr(0, head.find('\n'));
    if (line.find("bash") != std::string_view::npos || line.find("/sh") != std::string_view::npos ||
        line.find(" sh") != std::string_view::npos || line.find("zsh") != std::string_view::npos)
      return FileKind::Shell;
    if (line.find("python") != std::string_view::npos) return FileKind::Python;
  }
  return FileKind::Other;
}

std::string discovery_root(const std::vector<std::string>& paths) {
  for (const auto& given : paths) {
    std::error_code ec;
    fs::path p = fs::absolute(given, ec).lexically_normal();
    if (!fs::exists(fs::symlink_status(p, ec))) continue;
    if (!fs::is_directory(p, ec)) return p.parent_path().string();
    return fs::weakly_canonical(p, ec).string();
  }
  return fs::current_path().string();
}

namespace {

// What the walk found in one folder: its files and problems in the order of its sorted entries,
// and its subfolders (walked separately, possibly by another thread) in that order too.
struct FolderRecord {
  std::string name;  // the folder's own name (a subfolder's; empty for the walk's root)
  std::vector<DiscoveredFile> files;
  std::vector<std::pair<std::string, std::string>> problems;
  std::vector<FolderRecord*> subfolders;
  std::exception_ptr error;  // what `excluded` threw; the walk of this folder stopped there
};

// Whether `folder` + "/" sorts before `b` + (`b_is_folder` ? "/" : ""), byte by byte as
// std::string compares, without building either string.
bool slash_terminated_less(std::string_view folder, std::string_view b, bool b_is_folder = false) {
  const std::size_t n = std::min(folder.size(), b.size());
  if (const int c = folder.compare(0, n, b.substr(0, n)); c != 0) return c < 0;
  const auto at = [](std::string_view s, std::size_t i, bool slash) -> int {
    return i < s.size() ? static_cast<unsigned char>(s[i]) : (slash && i == s.size() ? '/' : -1);
  };
  // The first byte after the common part; the terminating "/" counts as one, the end as -1.
  for (std::size_t i = n; i <= n + 1; ++i) {
    const int x = at(folder, i, true), y = at(b, i, b_is_folder);
    if (x != y) return x < y;
  }
  return false;
}

// The file name of a discovered file (its path's last part).
std::string_view name_of(const DiscoveredFile& f) {
  const std::size_t slash = f.abs_path.rfind('/');
  return std::string_view(f.abs_path).substr(slash == std::string::npos ? 0 : slash + 1);
}

// What a folder's listing says of a name.
enum class Holds { No, Yes, Maybe };

struct FolderTask {
  std::string dir;
  std::string rel_dir;
  std::shared_ptr<const IgnoreRules> ignore;  // the .gitignore patterns of the folders above
  FolderRecord* record = nullptr;
};

// One folder walk (a folder given on the command line). Folders are walked by up to `threads`
// threads (the caller's and pool helpers asked for once two folders wait); each folder fills its own
// record, and the records are put back in the order of a single-threaded depth-first walk, so
// the result does not depend on the number of threads or their timing.
class FolderWalk {
 public:
  FolderWalk(const fs::path& root, unsigned threads, const ExcludeFn& excluded, const FolderListedFn& listed,
             const std::function<std::string(const std::string&)>& display, std::string cwd, bool stamp_files)
      : root_(root),
        threads_(threads),
        excluded_(excluded),
        listed_(listed),
        display_(display),
        cwd_(std::move(cwd)),
        stamp_files_(stamp_files) {}
  FolderWalk(const FolderWalk&) = delete;
  FolderWalk& operator=(const FolderWalk&) = delete;

  // Walks the folder; rethrows the first error of `excluded` in walk order.
  // `seen`: the files listed so far, when another path given may have listed some of these.
  void run(Discovery& out, std::set<std::string>* seen) {
    FolderRecord* top = &records_.emplace_back();
    queue_.push_back({root_.string(), "", std::make_shared<IgnoreRules>(), top});
    work();
    helpers_.wait();
    // Errors and problems depth-first, a folder's own before its subfolders', as the records
    // were filled.
    std::vector<FolderRecord*> stack{top};
    while (!stack.empty()) {
      FolderRecord* r = stack.back();
      stack.pop_back();
      if (r->error) std::rethrow_exception(r->error);
      for (auto& p : r->problems) out.problems.push_back(std::move(p));
      for (auto d = r->subfolders.rbegin(); d != r->subfolders.rend(); ++d) stack.push_back(*d);
    }
    // Files in the order of their paths relative to the root, which is the order of the display
    // paths when they share one prefix (discover() checks, and sorts when they do not): in a
    // folder, a file named `f` comes before the files of subfolder `s` when `f` < `s` + "/".
    // Merging each folder's sorted names this way costs no comparison of whole paths, which
    // sorting 20,000 of them did (17% of a warm run).
    struct Frame {
      FolderRecord* record;
      std::size_t file = 0, sub = 0;
    };
    auto file_first = [](std::string_view file, const std::string& folder) {
      return !slash_terminated_less(folder, file);
    };
    auto add = [&](DiscoveredFile& f) {
      if (!seen || seen->insert(f.abs_path).second) out.files.push_back(std::move(f));
    };
    std::vector<Frame> frames{{top}};
    while (!frames.empty()) {
      Frame& fr = frames.back();
      FolderRecord* r = fr.record;
      if (fr.sub == 0 && fr.file == 0)
        std::sort(r->subfolders.begin(), r->subfolders.end(), [](const FolderRecord* a, const FolderRecord* b) {
          return slash_terminated_less(a->name, b->name, true);
        });
      if (fr.file < r->files.size() &&
          (fr.sub == r->subfolders.size() || file_first(name_of(r->files[fr.file]), r->subfolders[fr.sub]->name))) {
        add(r->files[fr.file++]);
      } else if (fr.sub < r->subfolders.size()) {
        FolderRecord* next = r->subfolders[fr.sub++];
        frames.push_back({next});  // `fr` is not used after this
      } else {
        frames.pop_back();
      }
    }
  }

 private:
  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return !queue_.empty() || busy_ == 0; });
      if (queue_.empty()) break;  // nothing queued and nobody walking: done
      FolderTask task = std::move(queue_.back());
      queue_.pop_back();
      ++busy_;
      lock.unlock();
      std::vector<FolderTask> found;
      try {
        walk(task, found);
      } catch (...) {
        task.record->error = std::current_exception();
      }
      lock.lock();
      --busy_;
      try {
        for (auto& f : found) queue_.push_back(std::move(f));
      } catch (...) {
        task.record->error = std::current_exception();  // out of memory: the walk fails at this folder
      }
      // A helper asked for late, or never begun, finds the walk done and returns (run() withdraws
      // the calls not begun).
      if (queue_.size() >= 2 && helpers_asked_ + 1 < threads_) {
        ++helpers_asked_;
        helpers_.add(1);
      }
      wake_.notify_all();
    }
  }

  // What display_ shows for the files of folder `dir` up to their names, when they are plainly
  // below the working folder (true of a file whose name does not start with '.' when its folder
  // is the working folder or plainly below it); nullopt otherwise, and display_ is asked for each.
  std::optional<std::string> shown_prefix(const std::string& dir) const {
    if (cwd_.empty() || cwd_ == "/") return std::nullopt;
    if (dir == cwd_) return std::string();
    if (plainly_below(dir, cwd_)) return dir.substr(cwd_.size() + 1) + "/";
    return std::nullopt;
  }

  FolderRecord* new_record() {
    std::lock_guard lock(mutex_);
    return &records_.emplace_back();  // a deque: the records already handed out stay in place
  }

  void walk(FolderTask& task, std::vector<FolderTask>& found) {
    const std::string& dir = task.dir;  // absolute and normal: the root with names appended
    const std::string& rel_dir = task.rel_dir;
    FolderRecord& out = *task.record;
    std::shared_ptr<const IgnoreRules> ignore = task.ignore;
    // The entries by name, with the type readdir gives (std::filesystem's iterator built a path
    // and its list of parts per entry: half of a warm run over 20,000 files).
    struct Entry {
      std::string name;
      unsigned char type;
    };
    std::vector<Entry> entries;
    // Whether a marker exists at `name` in this folder, asked by path (as a link is followed).
    const auto marker_on_disk = [&](const char* name) {
      struct stat st;
      return ::stat((dir + "/" + name).c_str(), &st) == 0;
    };
    // Not skipped when unreadable: an unreadable folder is reported, not silently dropped. Unless
    // it is marked: a virtual environment that can be entered but not listed (mode 0711) is
    // skipped, its marker asked by path.
    std::unique_ptr<DIR, int (*)(DIR*)> listing(::opendir(dir.c_str()), ::closedir);
    if (!listing) {
      const int error = errno;  // before display_ allocates
      if (!rel_dir.empty() && (marker_on_disk("pyvenv.cfg") || marker_on_disk("CACHEDIR.TAG"))) return;
      out.problems.emplace_back(display_(dir), "cannot read directory: " + errno_message(error));
      return;
    }
    bool complete = true;  // false: the listing stopped early, and what it lacks is asked by path
    for (;;) {
      errno = 0;
      const dirent* e = ::readdir(listing.get());
      if (!e) {
        if (const int error = errno; error != 0) {
          out.problems.emplace_back(display_(dir), "cannot list the whole directory: " + errno_message(error));
          complete = false;
        }
        break;
      }
      const char* n = e->d_name;
      if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'))) continue;
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {  // file systems that do not say: ask (the link itself)
        struct stat st;
        if (::fstatat(::dirfd(listing.get()), n, &st, AT_SYMLINK_NOFOLLOW) == 0) type = IFTODT(st.st_mode);
      }
      entries.push_back({n, type});
    }
    // Kept open while the files are listed: their stamps are asked relative to it.
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
    // Whether the listing names `name` (a partial listing may lack it: then it may be there).
    const auto holds = [&](const char* name) {
      const auto it = std::lower_bound(entries.begin(), entries.end(), std::string_view(name),
                                       [](const Entry& e, std::string_view n) { return e.name < n; });
      if (it == entries.end() || it->name != name) return complete ? Holds::No : Holds::Maybe;
      // A link, or an entry whose type could not be told, exists as its target does.
      return it->type == DT_LNK || it->type == DT_UNKNOWN ? Holds::Maybe : Holds::Yes;
    };
    const auto marked_by = [&](const char* name) {
      const Holds h = holds(name);
      return h == Holds::Yes || (h == Holds::Maybe && marker_on_disk(name));
    };
    // A virtual environment or a cache folder below the folder analysed: nothing in it is read.
    if (!rel_dir.empty() && (marked_by("pyvenv.cfg") || marked_by("CACHEDIR.TAG"))) return;
    // A repository's own exclude file (.git/info/exclude) holds patterns like a .gitignore at its
    // top, below the .gitignore files in precedence (gitignore(5)): read first, so they win. Only
    // at the folder analysed, as its .gitignore files are read only from there down. Each is read
    // only when the listing may hold it.
    std::string exclude =
        rel_dir.empty() && holds(".git") != Holds::No ? read_head(dir + "/.git/info/exclude", 1 << 20) : std::string();
    std::string gi = holds(".gitignore") != Holds::No ? read_head(dir + "/.gitignore", 1 << 20) : std::string();
    if (!exclude.empty() || !gi.empty()) {
      auto mine = std::make_shared<IgnoreRules>(*ignore);
      if (!exclude.empty()) mine->add_file(rel_dir, exclude);
      if (!gi.empty()) mine->add_file(rel_dir, gi);
      ignore = std::move(mine);
    }
    // What each entry is, in the listing's order: a problem to report, a folder or file to ask
    // `excluded` about, or nothing (skipped by name or .gitignore; not followed).
    struct Candidate {
      const Entry* entry;
      std::string path;
      bool regular = false;
      bool excluded = false;
      std::string problem;  // reported instead (a link not followed), without asking `excluded`
    };
    std::vector<Candidate> candidates;
    candidates.reserve(entries.size());
    for (const auto& e : entries) {
      const auto& [name, type] = e;
      std::string path = dir.size() == 1 ? dir + name : dir + "/" + name;  // "/" has its slash
      // The path relative to the walk's root: the end of `path` (the folder is the root with
      // rel_dir's names appended).
      const std::string_view rel =
          std::string_view(path).substr(path.size() - name.size() - (rel_dir.empty() ? 0 : rel_dir.size() + 1));
      bool regular = type == DT_REG;
      if (type == DT_LNK) {
        // Follow a symlinked file only when it stays inside the root; never a symlinked folder.
        // A link we do not follow is reported when its name is one trl-lint would read.
        const bool relevant = classify(name, "", folder_name(dir)) != FileKind::Other;
        if (relevant && ignore->ignored(rel, false)) continue;
        const auto report = [&](std::string problem) {
          if (relevant) candidates.push_back({&e, std::move(path), false, false, std::move(problem)});
        };
        std::error_code sec;
        fs::path target = fs::weakly_canonical(path, sec);
        if (sec) {
          report(sec == std::errc::too_many_symbolic_link_levels
                     ? "symlink loop; skipped"
                     : "cannot resolve symlink: " + sec.message() + "; skipped");
          continue;
        }
        std::error_code tec;
        auto target_status = fs::status(path, tec);
        if (fs::is_directory(target_status)) continue;
        if (!inside(target, root_)) {
          report("symlink points outside the analysed folder; not followed");
          continue;
        }
        if (!fs::exists(target_status)) {
          report(tec == std::errc::too_many_symbolic_link_levels
                     ? "symlink loop; skipped"
                     : "dangling symlink (its target does not exist); skipped");
          continue;
        }
        regular = fs::is_regular_file(target_status);
      }
      if (type == DT_DIR ? skipped_dir(name) || ignore->ignored(rel, true) : ignore->ignored(rel, false)) continue;
      candidates.push_back({&e, std::move(path), regular});
    }
    {
      // The configuration is asked under one lock per folder (it is not thread-safe).
      std::lock_guard lock(excluded_mutex_);
      if (listed_ && complete) {  // a partial listing is not told: what it lacks may be there
        std::vector<ListedName> names;
        names.reserve(entries.size());
        for (const auto& e : entries) names.push_back({e.name, e.type == DT_LNK || e.type == DT_UNKNOWN});
        listed_(dir, names);
      }
      if (excluded_)
        for (auto& c : candidates)
          if (c.problem.empty()) c.excluded = excluded_(c.path);
    }
    const std::optional<std::string> shown = shown_prefix(dir);
    for (auto& c : candidates) {
      const std::string& name = c.entry->name;
      if (!c.problem.empty()) {
        out.problems.emplace_back(display_(c.path), std::move(c.problem));
        continue;
      }
      if (c.excluded) continue;
      if (c.entry->type == DT_DIR) {
        FolderRecord* sub = new_record();
        sub->name = name;  // before the task is queued: whoever walks it sees the name
        out.subfolders.push_back(sub);
        std::string rel = rel_dir.empty() ? name : rel_dir + "/" + name;
        found.push_back({std::move(c.path), std::move(rel), ignore, sub});
        continue;
      }
      FileKind kind = classify(name, (name.find('.') == std::string::npos && c.regular) ? read_head(c.path, 256) : "",
                               folder_name(dir));
      if (kind == FileKind::Other) continue;
      if (!c.regular) {
        out.problems.emplace_back(display_(c.path), "not a regular file (FIFO, socket or device); skipped");
        continue;
      }
      FileStamp stamp;
      if (stamp_files_) {
        struct stat st;  // as the file is read: a link followed
        if (::fstatat(::dirfd(listing.get()), name.c_str(), &st, 0) == 0 && S_ISREG(st.st_mode)) stamp = stamp_of(st);
      }
      std::string shown_path = shown && name[0] != '.' ? *shown + name : display_(c.path);
      out.files.push_back({std::move(c.path), std::move(shown_path), kind, stamp});
    }
    // Walked last-found first by this thread (the queue is a stack), as a depth-first walk would.
    std::reverse(found.begin(), found.end());
  }

  const fs::path root_;
  const unsigned threads_;
  const ExcludeFn& excluded_;
  const FolderListedFn& listed_;
  const std::function<std::string(const std::string&)>& display_;
  const std::string cwd_;  // the working folder, as display_ sees it ("" when unknown)
  const bool stamp_files_;
  std::mutex mutex_;  // guards queue_, busy_, records_ (growth) and helpers_asked_
  std::condition_variable wake_;
  std::vector<FolderTask> queue_;
  std::size_t busy_ = 0;
  std::deque<FolderRecord> records_;
  unsigned helpers_asked_ = 0;
  std::mutex excluded_mutex_;
  // Last: destroyed first, it waits for the helpers (when run() left early) while what they
  // use is still there.
  HelperGroup helpers_{[this] { work(); }};
};

}  // namespace

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

Discovery discover(const std::vector<std::string>& paths, const ExcludeFn& excluded, unsigned threads,
                   const FolderListedFn& listed, bool stamp_files) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  Discovery out;
  std::error_code cwd_ec;
  const fs::path cwd = fs::current_path(cwd_ec);  // asked once: it does not change during the walk
  const std::function<std::string(const std::string&)> display = [&](const std::string& abs) {
    return display_path(abs, cwd_ec ? fs::path() : cwd);
  };
  std::set<std::string> seen;
  for (const auto& given : paths) {
    std::error_code ec;
    fs::path p = fs::absolute(given, ec).lexically_normal();
    if (!fs::exists(fs::symlink_status(p, ec))) {
      out.missing.push_back(given);
      continue;
    }
    if (!fs::is_directory(p, ec)) {
      // A file named explicitly is read whatever its kind (the user asked for it).
      std::string s = p.string();
      if (out.root.empty()) out.root = p.parent_path().string();
      if (!seen.insert(s).second) continue;
      if (std::string why = not_readable_reason(p); !why.empty()) {
        // Never open a FIFO or device: reading one blocks or never ends.
        out.problems.emplace_back(display(s), why);
        continue;
      }
      FileStamp stamp;
      if (struct stat st; stamp_files && ::stat(s.c_str(), &st) == 0 && S_ISREG(st.st_mode)) stamp = stamp_of(st);
      out.files.push_back({s, display(s),
                           classify(p.filename().string(), read_head(p, 256), p.parent_path().filename().string()),
                           stamp});
      continue;
    }
    // Paths are built by appending names to the canonical root, so they are normal already.
    fs::path root = fs::weakly_canonical(p, ec);
    if (out.root.empty()) out.root = root.string();
    // Within one walk every path is listed once: the set is for what several paths share.
    FolderWalk(root, threads, excluded, listed, display, cwd_ec ? std::string() : cwd.string(), stamp_files)
        .run(out, paths.size() > 1 ? &seen : nullptr);
  }
  // Paths that overlap meet the same skipped entries: each is reported once, where first met.
  if (paths.size() > 1) {
    std::set<std::pair<std::string, std::string>> reported;
    out.problems.erase(std::remove_if(out.problems.begin(), out.problems.end(),
                                      [&](const auto& p) { return !reported.insert(p).second; }),
                       out.problems.end());
  }
  // One folder walk lists its files in order already (FolderWalk::run); several paths, a file
  // named explicitly or display paths that do not share the root's prefix need the sort.
  const auto by_display = [](const auto& a, const auto& b) { return a.display_path < b.display_path; };
  if (!std::is_sorted(out.files.begin(), out.files.end(), by_display)) {
    std::sort(out.files.begin(), out.files.end(), by_display);
    out.sorted_after_walk = true;
  }
  if (out.root.empty()) out.root = fs::current_path().string();
  return out;
}

}  // namespace trl
