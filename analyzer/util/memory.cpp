#include "analyzer/util/memory.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>  // defines __GLIBC__ where the C library is glibc
#include <cstring>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define TRL_LINT_OWN_MALLOC 1  // clang's sanitizers bring their own allocator
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TRL_LINT_OWN_MALLOC 1  // so do gcc's
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(TRL_LINT_OWN_MALLOC)
#define TRL_LINT_HUGE_PAGES 1
#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
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

// A 2 MiB range that holds one small page takes small pages for the rest of it, one fault each.
// The block that made the arena grow had malloc write the header of the free space after it, at
// its end, before the advice: once it is freed, the free space begins at the block again, and a
// block up to just before the next 2 MiB boundary past that header is taken and kept, untouched
// (address space only), so that the arena goes on from a range no page of which was touched.
void skip_touched(void* block, std::size_t size) {
  static std::atomic<int> kept{0};
  const auto at = reinterpret_cast<std::uintptr_t>(block);
  std::free(block);
  const std::uintptr_t boundary = up(at + size + 64);
  if (boundary < at + 256) return;
  void* volatile filler = std::malloc(boundary - at - 128);
  if (filler) ++kept;  // (kept until the process ends)
}

}  // namespace

void prefer_huge_pages() {
  chosen = true;
  // The heap grows 64 MiB at a time (address space: a page costs memory when touched), is never
  // trimmed, and serves blocks up to 32 MiB (malloc's ceiling for the threshold) itself.
  ::mallopt(M_TOP_PAD, 64 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  // Grows the heap now, to advise the next 64 MiB at once: a block larger than the free space at
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
  // A first block makes it, 64 MiB writable at once (M_TOP_PAD); /proc/self/maps says where.
  constexpr std::size_t kBlock = std::size_t{1} << 20;
  void* volatile block = std::malloc(kBlock);
  if (!block) return;
  const auto at = reinterpret_cast<std::uintptr_t>(block);
  // Read with plain reads into the stack: nothing may be allocated after the block, which must
  // border the free space when it is freed (skip_touched).
  std::uintptr_t start = 0, end = 0;
  const int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    std::free(block);
    return;
  }
  char text[1 << 16];
  std::size_t size = 0;
  for (ssize_t got = 0; size < sizeof text - 1; size += static_cast<std::size_t>(got)) {
    got = ::read(fd, text + size, sizeof text - 1 - size);
    if (got <= 0) break;
  }
  ::close(fd);
  text[size] = '\0';
  // One mapping per line: "start-end perms offset device inode path", addresses in hex.
  for (const char* line = text; *line;) {
    char* dash = nullptr;
    const unsigned long lo = std::strtoul(line, &dash, 16);
    if (dash && *dash == '-') {
      const unsigned long hi = std::strtoul(dash + 1, nullptr, 16);
      if (at >= lo && at < hi) {
        start = lo;
        end = hi;
        break;
      }
    }
    const char* next = std::strchr(line, '\n');
    if (!next) break;
    line = next + 1;
  }
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
