#include "analyzer/util/memory.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>  // defines __GLIBC__ where the C library is glibc

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(hwaddress_sanitizer) || __has_feature(leak_sanitizer)
#define TRL_LINT_OWN_MALLOC 1  // clang's sanitizers bring their own allocator
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(__SANITIZE_HWADDRESS__)
#define TRL_LINT_OWN_MALLOC 1  // so do gcc's
#endif

// mallinfo2: glibc 2.33.
#if defined(__linux__) && defined(__GLIBC__) && !defined(TRL_LINT_OWN_MALLOC) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#define TRL_LINT_HUGE_PAGES 1
#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace trl {

#ifdef TRL_LINT_HUGE_PAGES
namespace {

// Set by prefer_huge_pages: the helper threads' arenas follow the main heap's choice.
std::atomic<bool> chosen{false};

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

std::uintptr_t up(std::uintptr_t a) {
  return (a + kHugePage - 1) & ~(kHugePage - 1);
}
std::uintptr_t down(std::uintptr_t a) {
  return a & ~(kHugePage - 1);
}

// Advice only: every error (no transparent huge pages in this kernel, a range the kernel will not
// take) leaves things as they were.
void advise_huge(std::uintptr_t from, std::uintptr_t to) {
  from = up(from);
  to = down(to);
  if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
}

// The blocks skip_touched keeps, reachable to the end (a leak checker sees them held).
constexpr int kKeptBlocks = 64;
std::atomic<void*> kept_blocks[kKeptBlocks];
std::atomic<int> kept_count{0};

// A 2 MiB range that holds one small page takes small pages for the rest of it, one fault each.
// The block that made the arena grow had malloc write the header of the free space after it, at
// its end, before the advice: once it is freed, the free space begins at the block again, and a
// block up to just before the next 2 MiB boundary past that header is taken and kept, untouched
// (address space only), so that the arena goes on from a range no page of which was touched.
void skip_touched(void* block, std::size_t size) {
  const auto at = reinterpret_cast<std::uintptr_t>(block);
  std::free(block);
  const std::uintptr_t boundary = up(at + size + 64);
  const int slot = kept_count++;
  if (boundary < at + 256 || slot >= kKeptBlocks) return;
  kept_blocks[slot] = std::malloc(boundary - at - 128);
}

// Whether this process may reserve memory in large steps: no limit on its data or address space
// (a limit counts the reserve, and malloc does not retry smaller: the step would fail where the
// run fits), and not the kernel's strict accounting (vm.overcommit_memory 2), which counts it too.
bool large_steps_allowed() {
  for (const int resource : {RLIMIT_DATA, RLIMIT_AS}) {
    struct rlimit limit {};
    if (::getrlimit(resource, &limit) != 0 || limit.rlim_cur != RLIM_INFINITY) return false;
  }
  const int fd = ::open("/proc/sys/vm/overcommit_memory", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  char mode = 0;
  const bool read = ::read(fd, &mode, 1) == 1;
  ::close(fd);
  return !read || mode != '2';
}

// The mapping of /proc/self/maps that holds `at`: [start, end), or end 0. Read in small pieces
// into the stack (helper threads may have small stacks), with no allocation: the caller's block
// must stay the last thing allocated.
void mapping_of(std::uintptr_t at, std::uintptr_t& start, std::uintptr_t& end) {
  start = end = 0;
  const int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  // One mapping per line, "start-end perms offset device inode path", addresses in hex: a small
  // state machine over the characters (field 0: start, 1: end, 2: the rest of the line).
  char piece[1024];
  int field = 0;
  std::uintptr_t lo = 0, hi = 0;
  bool found = false;
  for (ssize_t got; !found && (got = ::read(fd, piece, sizeof piece)) > 0;)
    for (ssize_t i = 0; i < got && !found; ++i) {
      const char c = piece[i];
      if (c == '\n') {
        field = 0;
        lo = hi = 0;
        continue;
      }
      if (field == 2) continue;
      const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (digit >= 0) {
        std::uintptr_t& v = field == 0 ? lo : hi;
        v = v * 16 + static_cast<std::uintptr_t>(digit);
      } else if (field == 0 && c == '-') {
        field = 1;
      } else {
        if (field == 1 && at >= lo && at < hi) {
          start = lo;
          end = hi;
          found = true;
        }
        field = 2;
      }
    }
  ::close(fd);
}

}  // namespace

void prefer_huge_pages() {
  if (!large_steps_allowed()) return;
  chosen = true;
  // The heap grows 256 MiB at a time (address space: a page costs memory when touched; a helper's
  // arena takes what its 64 MiB hold), is never trimmed, and serves blocks up to 32 MiB (malloc's
  // ceiling for the threshold) itself. Only the part advised below gets huge pages: the kernel
  // does not extend an advised mapping when the heap grows past it.
  ::mallopt(M_TOP_PAD, 256 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  // Grows the heap now, to advise the next 256 MiB at once: a block larger than the free space at
  // its end (keepcost). (volatile: a block that is never used is otherwise never allocated.)
  const auto before = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  const std::size_t size = ::mallinfo2().keepcost + (std::size_t{1} << 20);
  void* volatile block = std::malloc(size);
  if (!block) return;
  const auto after = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  if (before != static_cast<std::uintptr_t>(-1) && after > before) advise_huge(before, after);
  skip_touched(block, size);
}

void prefer_huge_pages_here() {
  if (!chosen) return;
  // The thread's arena is a mapping of its own, reserved whole and made writable as it grows.
  // A first block makes it, its 64 MiB writable at once (M_TOP_PAD); /proc/self/maps says where.
  constexpr std::size_t kBlock = std::size_t{1} << 20;
  void* volatile block = std::malloc(kBlock);
  if (!block) return;
  std::uintptr_t start = 0, end = 0;
  mapping_of(reinterpret_cast<std::uintptr_t>(block), start, end);
  if (end) advise_huge(start, end);
  skip_touched(block, kBlock);
}

bool gives_huge_page_advice() {
  return true;
}
#else
void prefer_huge_pages() {}
void prefer_huge_pages_here() {}
bool gives_huge_page_advice() {
  return false;
}
#endif

}  // namespace trl
