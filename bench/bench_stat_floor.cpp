// Stat floor for `make bench`: walks a folder and asks the stamp (fstatat, relative to the open
// folder) of every file whose name trl-lint reads, on N threads, and nothing else. A second run
// whose cache is checked file by file, as trl-lint's and ruff's are, does at least this: the
// fastest such a run could be on this machine, so cold / floor is the highest cold/warm ratio any
// of them could reach on a corpus (docs/performance.md, "What a warm run cannot go below").
// Prints one line:
//   files=<n> folders=<n> seconds=<wall>
// Usage: bench_stat_floor [--threads N] FOLDER
//
// The folders skipped by name and the names read are discovery's own (trl::skipped_dir,
// trl::classify). Files without an extension, which trl-lint reads for a shebang, are left out;
// what .gitignore files and exclusions hide is not (the generated corpora have none).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "analyzer/discover/discover.hpp"
#include "bench/bench_args.hpp"

namespace {

// Named so that trl-lint reads it: its kind by name alone (a file without an extension would
// need its first line read, and is left out).
bool read_by_name(const std::string& name, const std::string& folder) {
  return trl::classify(name, "", folder) != trl::FileKind::Other;
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
    const std::string folder = dir.substr(dir.rfind('/') + 1);
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      if (e->d_type == DT_DIR) {
        if (!trl::skipped_dir(name)) found.push_back(dir + "/" + name);
      } else if (read_by_name(name, folder)) {
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
  const auto args = parse_bench_args(argc, argv, "bench_stat_floor");
  if (!args) return 2;
  const unsigned threads = args->threads;
  const char* folder = args->folder;
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
