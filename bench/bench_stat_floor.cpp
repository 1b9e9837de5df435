// Stat floor for `make bench`: walks a folder and asks the stamp (fstatat, relative to the open
// folder) of every file whose name trl-lint reads, on N threads, and nothing else. A second run
// whose cache is checked file by file, as trl-lint's and ruff's are, does at least this: the
// fastest such a run could be on this machine, so cold / floor is the highest cold/warm ratio any
// of them could reach on a corpus (docs/performance.md, "What a warm run cannot go below").
// Prints one line:
//   files=<n> folders=<n> seconds=<wall>
// Usage: bench_stat_floor [--threads N] FOLDER
//
// The folders skipped by name are discovery's (analyzer/discover/discover.cpp, skipped_dir); the
// names are those trl-lint reads by name alone (analyzer/discover/discover.cpp, classify). Files
// without an extension, which trl-lint reads for a shebang, are left out; what .gitignore files
// and exclusions hide is not (the generated corpora have none).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

bool skipped_folder(const std::string& name) {
  static const std::set<std::string> names = {".git",          ".hg",         ".svn",           "node_modules",
                                              "__pycache__",   ".venv",       "venv",           ".tox",
                                              ".nox",          ".mypy_cache", ".pytest_cache",  ".ruff_cache",
                                              ".eggs",         "build",       "dist",           ".ipynb_checkpoints",
                                              "site-packages", ".cache",      ".trl-lint_cache"};
  return names.count(name) != 0;
}

bool read_by_name(std::string_view name) {
  const auto ends = [&](std::string_view suffix) {
    return name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  };
  for (std::string_view s :
       {".py", ".yaml", ".yml", ".sh", ".bash", ".slurm", ".sbatch", ".md", ".markdown", ".ipynb", ".mk"})
    if (ends(s)) return true;
  if (name == "Makefile" || name == "makefile" || name == "GNUmakefile" || name == "pyproject.toml" ||
      name == "setup.cfg")
    return true;
  return (name.rfind("requirements", 0) == 0 || name.rfind("constraints", 0) == 0) && ends(".txt");
}

// Folders waiting to be listed, shared by the threads; done when none waits and none is listed.
struct Walk {
  std::mutex mutex;
  std::condition_variable wake;
  std::vector<std::string> waiting;
  unsigned busy = 0;
  std::atomic<std::size_t> files{0}, folders{0};

  void list(const std::string& dir, std::vector<std::string>& found) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return;
    ++folders;
    const int fd = ::dirfd(d);
    while (const dirent* e = ::readdir(d)) {
      const std::string_view name = e->d_name;
      if (name == "." || name == "..") continue;
      if (e->d_type == DT_DIR) {
        if (!skipped_folder(std::string(name))) found.push_back(dir + "/" + std::string(name));
      } else if (read_by_name(name)) {
        struct stat st;
        if (::fstatat(fd, e->d_name, &st, 0) == 0 && S_ISREG(st.st_mode)) ++files;
      }
    }
    ::closedir(d);
  }

  void work() {
    std::unique_lock lock(mutex);
    for (;;) {
      wake.wait(lock, [&] { return !waiting.empty() || busy == 0; });
      if (waiting.empty()) return;
      std::string dir = std::move(waiting.back());
      waiting.pop_back();
      ++busy;
      lock.unlock();
      std::vector<std::string> found;
      list(dir, found);
      lock.lock();
      --busy;
      for (auto& f : found) waiting.push_back(std::move(f));
      wake.notify_all();
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  unsigned threads = 1;
  const char* folder = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      threads = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (!folder && arg.rfind("--", 0) != 0) {
      folder = argv[i];
    } else {
      folder = nullptr;
      break;
    }
  }
  if (!folder || threads == 0 || threads > 256) {
    std::fprintf(stderr, "usage: bench_stat_floor [--threads N] FOLDER\n");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  Walk walk;
  walk.waiting.emplace_back(folder);
  if (threads == 1) {
    walk.work();  // no thread is started
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back([&] { walk.work(); });
    for (auto& t : pool) t.join();
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("files=%zu folders=%zu seconds=%.6f\n", walk.files.load(), walk.folders.load(), secs);
  return 0;
}
