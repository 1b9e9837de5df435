#include "analyzer/util/binary_io.hpp"

// xxHash from its header alone (every function inline, nothing to link), in this file only: its
// macros and intrinsics headers stay out of the files that include binary_io.hpp.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace trl::bin {

std::uint64_t hash64(std::string_view s, std::uint64_t seed) {
  return XXH3_64bits_withSeed(s.data(), s.size(), seed);
}

}  // namespace trl::bin
