#include "analyzer/discover/discover.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

#include "analyzer/discover/gitignore.hpp"

namespace fs = std::filesystem;

namespace trl {

namespace {

bool skipped_dir(const std::string& name, const fs::path& dir) {
  static const std::set<std::string> names = {".git",          ".hg",         ".svn",           "node_modules",
                                              "__pycache__",   ".venv",       "venv",           ".tox",
                                              ".nox",          ".mypy_cache", ".pytest_cache",  ".ruff_cache",
                                              ".eggs",         "build",       "dist",           ".ipynb_checkpoints",
                                              "site-packages", ".cache",      ".trl-lint_cache"};
  if (names.count(name)) return true;
  std::error_code ec;
  // Virtual environments and cache folders mark themselves.
  return fs::exists(dir / "pyvenv.cfg", ec) || fs::exists(dir / "CACHEDIR.TAG", ec);
}

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

// `abs` as users see it: relative to the working folder `cwd` (empty when unknown), lexically —
// fs::relative would resolve symlinks, showing a link by its target's path.
std::string display_path(const fs::path& abs, const fs::path& cwd) {
  // The common case without fs::path arithmetic: a path below the working folder.
  const std::string& a = abs.native();
  const std::string& c = cwd.native();
  if (!c.empty() && c != "/" && a.size() > c.size() + 1 && a.compare(0, c.size(), c) == 0 && a[c.size()] == '/' &&
      a.find("/.", c.size()) == std::string::npos)
    return a.substr(c.size() + 1);
  fs::path rel = cwd.empty() ? fs::path() : abs.lexically_relative(cwd);
  return rel.empty() ? abs.generic_string() : rel.generic_string();
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

FileKind classify(const std::string& name, std::string_view head) {
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
  if (name.rfind("requirements", 0) == 0 && ends(".txt")) return FileKind::Requirements;
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
  std::vector<DiscoveredFile> files;
  std::vector<std::pair<std::string, std::string>> problems;
  std::vector<FolderRecord*> subfolders;
  std::exception_ptr error;  // what `excluded` threw; the walk of this folder stopped there
};

struct FolderTask {
  fs::path dir;
  std::string rel_dir;
  std::shared_ptr<const IgnoreRules> ignore;  // the .gitignore patterns of the folders above
  FolderRecord* record = nullptr;
};

// One folder walk (a folder given on the command line). Folders are walked by up to `threads`
// threads (the caller's and helpers started once two folders wait); each folder fills its own
// record, and the records are put back in the order of a single-threaded depth-first walk, so
// the result does not depend on the number of threads or their timing.
class FolderWalk {
 public:
  FolderWalk(const fs::path& root, unsigned threads, const ExcludeFn& excluded,
             const std::function<std::string(const fs::path&)>& display)
      : root_(root), threads_(threads), excluded_(excluded), display_(display) {
    helpers_.reserve(threads_ > 1 ? threads_ - 1 : 0);
  }
  FolderWalk(const FolderWalk&) = delete;
  FolderWalk& operator=(const FolderWalk&) = delete;
  ~FolderWalk() {
    for (auto& h : helpers_)
      if (h.joinable()) h.join();  // run() left early: the helpers still finish the queue
  }

  // Walks the folder; rethrows the first error of `excluded` in walk order.
  // `seen`: the files listed so far, when another path given may have listed some of these.
  void run(Discovery& out, std::set<std::string>* seen) {
    FolderRecord* top = &records_.emplace_back();
    queue_.push_back({root_, "", std::make_shared<IgnoreRules>(), top});
    work();
    for (auto& h : helpers_) h.join();
    // Depth-first, a folder's own entries before its subfolders', as the records were filled.
    std::vector<FolderRecord*> stack{top};
    while (!stack.empty()) {
      FolderRecord* r = stack.back();
      stack.pop_back();
      if (r->error) std::rethrow_exception(r->error);
      for (auto& f : r->files)
        if (!seen || seen->insert(f.abs_path).second) out.files.push_back(std::move(f));
      for (auto& p : r->problems) out.problems.push_back(std::move(p));
      for (auto d = r->subfolders.rbegin(); d != r->subfolders.rend(); ++d) stack.push_back(*d);
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
      if (queue_.size() >= 2 && helpers_.size() + 1 < threads_ && !spawn_failed_) {
        try {
          helpers_.emplace_back([this] { work(); });  // room reserved: only starting it may fail
        } catch (...) {
          spawn_failed_ = true;  // no more threads to be had: the ones running finish the walk
        }
      }
      wake_.notify_all();
    }
  }

  bool excluded(const std::string& path) {
    if (!excluded_) return false;
    std::lock_guard lock(excluded_mutex_);  // the configuration it consults is not thread-safe
    return excluded_(path);
  }

  FolderRecord* new_record() {
    std::lock_guard lock(mutex_);
    return &records_.emplace_back();  // a deque: the records already handed out stay in place
  }

  void walk(FolderTask& task, std::vector<FolderTask>& found) {
    const fs::path& dir = task.dir;
    const std::string& rel_dir = task.rel_dir;
    FolderRecord& out = *task.record;
    std::shared_ptr<const IgnoreRules> ignore = task.ignore;
    if (std::string gi = read_head(dir / ".gitignore", 1 << 20); !gi.empty()) {
      auto mine = std::make_shared<IgnoreRules>(*ignore);
      mine->add_file(rel_dir, gi);
      ignore = std::move(mine);
    }
    // Each entry with its name, taken once: sorting by path().filename() builds two paths per
    // comparison, which showed in the profile of a warm (cached) run over 20,000 files.
    std::vector<std::pair<std::string, fs::directory_entry>> entries;
    // Not skip_permission_denied: an unreadable folder is reported, not silently dropped.
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
      out.problems.emplace_back(display_(dir), "cannot read directory: " + ec.message());
      return;
    }
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec) break;
      entries.emplace_back(it->path().filename().string(), *it);
    }
    if (ec) out.problems.emplace_back(display_(dir), "cannot list the whole directory: " + ec.message());
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [name, e] : entries) {
      const fs::path& path = e.path();
      const std::string rel = rel_dir.empty() ? name : rel_dir + "/" + name;
      std::error_code sec;
      const bool is_link = e.is_symlink(sec);
      if (is_link) {
        // Follow a symlinked file only when it stays inside the root; never a symlinked folder.
        // A link we do not follow is reported when its name is one trl-lint would read.
        const bool relevant = classify(name, "") != FileKind::Other;
        if (relevant && ignore->ignored(rel, false)) continue;
        fs::path target = fs::weakly_canonical(path, sec);
        if (sec) {
          if (relevant)
            out.problems.emplace_back(display_(path), sec == std::errc::too_many_symbolic_link_levels
                                                          ? "symlink loop; skipped"
                                                          : "cannot resolve symlink: " + sec.message() + "; skipped");
          continue;
        }
        std::error_code tec;
        auto target_status = fs::status(path, tec);
        if (fs::is_directory(target_status)) continue;
        if (!inside(target, root_)) {
          if (relevant)
            out.problems.emplace_back(display_(path), "symlink points outside the analysed folder; not followed");
          continue;
        }
        if (!fs::exists(target_status)) {
          if (relevant)
            out.problems.emplace_back(display_(path), tec == std::errc::too_many_symbolic_link_levels
                                                          ? "symlink loop; skipped"
                                                          : "dangling symlink (its target does not exist); skipped");
          continue;
        }
      }
      if (e.is_directory(sec) && !is_link) {
        if (skipped_dir(name, path) || ignore->ignored(rel, true)) continue;
        if (excluded(path.string())) continue;
        FolderRecord* sub = new_record();
        out.subfolders.push_back(sub);
        found.push_back({path, rel, ignore, sub});
        continue;
      }
      if (ignore->ignored(rel, false)) continue;
      std::string s = path.string();
      if (excluded(s)) continue;
      const bool regular = e.is_regular_file(sec);
      FileKind kind = classify(name, (name.find('.') == std::string::npos && regular) ? read_head(path, 256) : "");
      if (kind == FileKind::Other) continue;
      if (!regular) {
        out.problems.emplace_back(display_(path), "not a regular file (FIFO, socket or device); skipped");
        continue;
      }
      out.files.push_back({std::move(s), display_(path), kind});
    }
    // Walked last-found first by this thread (the queue is a stack), as a depth-first walk would.
    std::reverse(found.begin(), found.end());
  }

  const fs::path root_;
  const unsigned threads_;
  const ExcludeFn& excluded_;
  const std::function<std::string(const fs::path&)>& display_;
  std::mutex mutex_;  // guards queue_, busy_, records_ (growth) and helpers_
  std::condition_variable wake_;
  std::vector<FolderTask> queue_;
  std::size_t busy_ = 0;
  std::deque<FolderRecord> records_;
  std::vector<std::thread> helpers_;
  bool spawn_failed_ = false;
  std::mutex excluded_mutex_;
};

}  // namespace

Discovery discover(const std::vector<std::string>& paths, const ExcludeFn& excluded, unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  Discovery out;
  std::error_code cwd_ec;
  const fs::path cwd = fs::current_path(cwd_ec);  // asked once: it does not change during the walk
  const std::function<std::string(const fs::path&)> display = [&](const fs::path& abs) {
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
        out.problems.emplace_back(display(p), why);
        continue;
      }
      out.files.push_back({s, display(p), classify(p.filename().string(), read_head(p, 256))});
      continue;
    }
    // Paths are built by appending names to the canonical root, so they are normal already.
    fs::path root = fs::weakly_canonical(p, ec);
    if (out.root.empty()) out.root = root.string();
    // Within one walk every path is listed once: the set is for what several paths share.
    FolderWalk(root, threads, excluded, display).run(out, paths.size() > 1 ? &seen : nullptr);
  }
  std::sort(out.files.begin(), out.files.end(),
            [](const auto& a, const auto& b) { return a.display_path < b.display_path; });
  if (out.root.empty()) out.root = fs::current_path().string();
  return out;
}

}  // namespace trl
