#include "analyzer/report/location.hpp"

namespace trl {

Position start_position(const Project& project, const Span& span) {
  const SourceFile& f = project.sources.get(span.file);
  return {span.start.line + 1, f.display_column(span.start)};
}

Position end_position(const Project& project, const Span& span) {
  if (span.end <= span.begin || span.stop < span.start) return start_position(project, span);
  const SourceFile& f = project.sources.get(span.file);
  return {span.stop.line + 1, f.display_column(span.stop)};
}

std::uint32_t first_line(const Span& span) {
  return span.start.line;
}

std::uint32_t last_line(const Span& span) {
  if (span.stop.line <= span.start.line) return span.start.line;
  return span.stop.column == 0 ? span.stop.line - 1 : span.stop.line;
}

std::string normalized_line(std::string_view line) {
  std::string out;
  bool blank = false;
  for (char c : line) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out.push_back(' ');
    blank = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace trl
