// Positions as the machine-readable formats print them: 1-based lines, and 1-based columns
// counted in Unicode code points (the same columns as `concise` and `full`). An end position is
// exclusive: the column of the first character after the range.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "analyzer/project/project.hpp"

namespace trl {

struct Position {
  std::uint32_t line = 1;
  std::uint32_t column = 1;
};

Position start_position(const Project& project, const Span& span);
Position end_position(const Project& project, const Span& span);

// The lines a suppression comment may sit on for this span: its first line and its last
// (0-based; a span ending just after a newline ends on the line before).
std::uint32_t first_line(const Span& span);
std::uint32_t last_line(const Span& span);

// A line's text with surrounding whitespace trimmed and inner runs of blanks collapsed to one
// space: what baselines compare, so indentation changes and line shifts do not matter.
std::string normalized_line(std::string_view line);

}  // namespace trl
