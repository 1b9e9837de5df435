// Shared helpers of the libFuzzer targets (tests/fuzz/fuzz_*.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "analyzer/project/project.hpp"

namespace trl::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A project built in memory from one fuzz input. The input holds up to 8 files, each introduced
// by a line `=== <path>`; text before the first such line is `train.py`. Paths are reduced to
// [A-Za-z0-9._/-] with no `..` so every file stays inside the in-memory root.
Project project_from_input(std::string_view input);

// The result cache's facts pack on fuzzed facts: `facts` must decode from its encoding and
// encode to the same bytes again; `raw` (any bytes) must decode or be refused, never crash.
void check_facts_codec(const FileFacts& facts, std::string_view raw);

}  // namespace trl::fuzz
