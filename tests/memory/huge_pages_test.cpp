// prefer_huge_pages (analyzer/util/memory.hpp), in a process of its own as trl-lint calls it: first
// thing in main. The heap grown from then on and the arena of a helper thread of the worker pool
// are advised to use transparent huge pages, as the kernel's record of each mapping shows (the
// `hg` flag of /proc/self/smaps is MADV_HUGEPAGE), and the memory works as before; nothing is
// advised where the process may not reserve memory in large steps (ctest runs it again under
// `ulimit -d`, and under `ulimit -s 64`, where helper threads have 64 KiB stacks). Exit status 0:
// as expected.
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "analyzer/util/memory.hpp"
#include "analyzer/util/parallel.hpp"

namespace {

// The VmFlags of the mapping that holds `p`, with a space at each end (empty when none does).
std::string vm_flags_of(const void* p) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    // A mapping's first line is "start-end perms ..."; the others are "Name:   value".
    const auto colon = line.find(':'), dash = line.find('-'), space = line.find(' ');
    if (dash != std::string::npos && dash < space && (colon == std::string::npos || colon > space)) {
      std::istringstream head(line);
      unsigned long lo = 0, hi = 0;
      char sep = 0;
      head >> std::hex >> lo >> sep >> hi;
      inside = sep == '-' && at >= lo && at < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.substr(8) + ' ';
    }
  }
  return {};
}

// The kernel has transparent huge pages (whatever their mode: MADV_HUGEPAGE is recorded even when
// they are off, and refused only by a kernel built without them).
bool kernel_has_huge_pages() {
  return std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled");
}

// The process may reserve memory in large steps (the same conditions as memory.cpp, found here
// on their own).
bool large_steps_allowed() {
  for (const int resource : {RLIMIT_DATA, RLIMIT_AS}) {
    struct rlimit limit {};
    if (getrlimit(resource, &limit) != 0 || limit.rlim_cur != RLIM_INFINITY) return false;
  }
  std::ifstream mode("/proc/sys/vm/overcommit_memory");
  std::string text;
  std::getline(mode, text);
  return text != "2";
}

int failures = 0;
void expect(bool ok, const std::string& what) {
  std::cout << (ok ? "ok: " : "FAIL: ") << what << '\n';
  failures += ok ? 0 : 1;
}

}  // namespace

int main() {
  trl::prefer_huge_pages();
  // Blocks from 64 bytes to 4 MiB (blocks of a few hundred KiB and more are otherwise mapped on
  // their own), every byte usable.
  std::vector<std::pair<char*, std::size_t>> blocks;
  for (std::size_t size : {std::size_t{64}, std::size_t{300} << 10, std::size_t{4} << 20}) {
    auto* b = static_cast<char*>(std::malloc(size));
    if (!b) return 2;
    std::memset(b, 0x5a, size);
    blocks.emplace_back(b, size);
  }
  // A helper of the worker pool, as trl-lint's passes start them: each of the two calls waits
  // until both have begun, so one runs on a helper.
  std::string helper_flags;
  bool helper_memory_ok = true;
  const auto caller = std::this_thread::get_id();
  std::atomic<int> begun{0};
  trl::parallel_for(2, 2, [&](std::size_t) {
    ++begun;
    for (int spin = 0; begun < 2 && spin < 5000; ++spin) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (std::this_thread::get_id() == caller) return;
    std::vector<char*> mine;
    for (int k = 0; k < 1000; ++k) {
      auto* b = static_cast<char*>(std::malloc(3000));
      if (!b) {
        helper_memory_ok = false;
        break;
      }
      std::memset(b, k & 0xff, 3000);
      mine.push_back(b);
    }
    if (!mine.empty()) helper_flags = vm_flags_of(mine.back());
    for (std::size_t k = 0; k < mine.size(); ++k)
      helper_memory_ok = helper_memory_ok && mine[k][2999] == static_cast<char>(k & 0xff);
    for (char* b : mine) std::free(b);
  });
  expect(begun == 2 && !helper_flags.empty(), "a helper thread of the pool ran one of the calls");
  expect(helper_memory_ok, "a helper thread allocates and uses memory as before");
  for (auto [b, size] : blocks) expect(b[size - 1] == 0x5a && b[0] == 0x5a, "a block keeps what was written");
  const std::string main_flags = vm_flags_of(blocks[2].first + blocks[2].second - 1);
  std::cout << "main heap flags:" << main_flags << "\nhelper arena flags:" << helper_flags << '\n';
  if (!trl::gives_huge_page_advice() || !large_steps_allowed()) {
    // Sanitized builds (their own allocator), other C libraries, and limited processes.
    expect(main_flags.find(" hg ") == std::string::npos, "nothing advised here (main heap)");
    expect(helper_flags.find(" hg ") == std::string::npos, "nothing advised here (helper arena)");
  } else if (!kernel_has_huge_pages()) {
    expect(helper_flags.find(" hg ") == std::string::npos, "a kernel without transparent huge pages: nothing advised");
  } else {
    expect(main_flags.find(" hg ") != std::string::npos, "the heap grown after the call is advised (hg)");
    expect(helper_flags.find(" hg ") != std::string::npos, "the helper's arena is advised (hg)");
  }
  for (auto [b, size] : blocks) std::free(b);
  return failures ? 1 : 0;
}
