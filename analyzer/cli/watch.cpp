#include "analyzer/cli/watch.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <iostream>
#include <thread>

namespace trl {

namespace {

std::atomic<bool> stop_requested{false};

extern "C" void on_stop(int) {
  stop_requested = true;
}

// "[14:02:31]", local time.
std::string clock_now() {
  const std::time_t t = std::time(nullptr);
  std::tm local{};
  localtime_r(&t, &local);
  char buf[16];
  std::strftime(buf, sizeof buf, "[%H:%M:%S]", &local);
  return buf;
}

// Runs the check and waits for it. Its output goes where ours goes. -1 when it cannot start.
int run_check(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  argv.reserve(command.size() + 1);
  for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    // The check is interrupted by Ctrl-C as we are (the terminal signals the whole group).
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
    if (stop_requested) kill(pid, SIGTERM);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

// Sleeps `d`, waking early when a stop is requested.
void pause_for(std::chrono::milliseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (!stop_requested && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(d, std::chrono::milliseconds(50)));
}

}  // namespace

std::string watch_fingerprint(const std::vector<std::string>& roots, const ExcludeFn& excluded) {
  // Each file's stamp is taken as the walk lists it.
  const Discovery found = discover(roots, excluded, 1, {}, true);
  std::string out;
  out.reserve(found.files.size() * 96);
  for (const auto& f : found.files) {
    out += f.abs_path;
    if (f.stamp.valid)
      out += '\t' + std::to_string(f.stamp.size) + '\t' + std::to_string(f.stamp.mtime_ns) + '\t' +
             std::to_string(f.stamp.ctime_ns) + '\t' + std::to_string(f.stamp.ino);
    out += '\n';
  }
  // Configuration files the walk does not list as files to analyse still decide the findings.
  for (const auto& root : roots)
    for (const char* name : {".trl-lint.toml", "trl-lint.toml", ".trl-lint.yaml", "pyproject.toml"}) {
      struct stat st {};
      const std::string path = root + "/" + name;
      if (::stat(path.c_str(), &st) == 0)
        out += path + '\t' + std::to_string(st.st_size) + '\t' + std::to_string(st.st_mtim.tv_sec) + '.' +
               std::to_string(st.st_mtim.tv_nsec) + '\n';
    }
  return out;
}

int watch(const WatchOptions& options) {
  stop_requested = false;
  struct sigaction sa {};
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: waitpid returns on the signal
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  std::string seen = watch_fingerprint(options.roots, options.excluded);
  bool first = true;
  while (!stop_requested) {
    if (options.clear_screen) std::cout << "\x1b[2J\x1b[H";
    std::cerr << clock_now() << (first ? " Checking in watch mode." : " File change detected; checking again.") << '\n';
    first = false;
    if (run_check(options.command) < 0) {
      std::cerr << "trl-lint: --watch: cannot run " << options.command.front() << '\n';
      return 2;
    }
    std::cerr << clock_now() << " Watching for file changes (Ctrl-C to stop)." << '\n';
    // Wait for a change, then for the files to settle.
    for (;;) {
      pause_for(options.interval);
      if (stop_requested) break;
      std::string now = watch_fingerprint(options.roots, options.excluded);
      if (now == seen) continue;
      for (;;) {
        pause_for(options.interval);
        if (stop_requested) break;
        std::string settled = watch_fingerprint(options.roots, options.excluded);
        if (settled == now) break;
        now = std::move(settled);
      }
      seen = std::move(now);
      break;
    }
  }
  return 0;
}

}  // namespace trl
