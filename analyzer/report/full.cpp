// `--output-format full` (the default): each finding with a code frame under its primary
// location, a note and frame per related location, free notes and the help line; then a
// summary line (left out with --quiet).
#include <algorithm>

#include "analyzer/report/formatters.hpp"

namespace trl {

namespace {

struct Style {
  bool on;
  std::string operator()(const char* code, const std::string& s) const {
    return on ? std::string("\x1b[") + code + "m" + s + "\x1b[0m" : s;
  }
};

std::string severity_color(Severity s) {
  switch (s) {
    case Severity::Error: return "1;31";
    case Severity::Warning: return "1;33";
    case Severity::Info: return "1;36";
  }
  return "1";
}

std::size_t code_points(std::string_view s) {
  std::size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

void frame(std::ostream& out, const Project& project, Span span, const std::string& label, const Style& st,
           const char* caret_color) {
  const SourceFile& f = project.sources.get(span.file);
  const std::uint32_t line = span.start.line;
  const std::string number = std::to_string(line + 1);
  const std::string pad(number.size(), ' ');
  out << pad << st("1;34", "--> ") << printable(f.path) << ':' << line + 1 << ':' << f.display_column(span.start)
      << '\n';
  if (f.text.empty()) return;  // a file we could not read has no code to show
  std::string text(f.line_text(line));
  std::replace(text.begin(), text.end(), '\t', ' ');
  text = printable(text);
  out << pad << ' ' << st("1;34", "|") << '\n';
  out << st("1;34", number + " |") << ' ' << text << '\n';
  std::size_t col = f.display_column(span.start) - 1;
  std::size_t width;
  if (span.stop.line == line && span.end > span.begin) {
    width = f.display_column(span.stop) - 1 - col;
  } else {
    width = code_points(text) > col ? code_points(text) - col : 1;
  }
  if (width == 0) width = 1;
  out << pad << ' ' << st("1;34", "|") << ' ' << std::string(col, ' ') << st(caret_color, std::string(width, '^'));
  if (!label.empty()) out << ' ' << st(caret_color, printable(label));
  out << '\n';
}

}  // namespace

void print_full(std::ostream& out, const std::vector<Diagnostic>& diags, const Project& project,
                const ReportOptions& options) {
  Style st{options.color};
  for (const auto& d : diags) {
    const std::string sev = to_string(d.severity);
    out << st(severity_color(d.severity).c_str(), sev + "[" + d.code + "]") << st("1", ": " + printable(d.message))
        << '\n';
    frame(out, project, d.span, d.label, st, severity_color(d.severity).c_str());
    for (const auto& r : d.related) {
      out << st("1;32", "note") << ": " << printable(r.message) << '\n';
      frame(out, project, r.span, "", st, "1;32");
    }
    for (const auto& n : d.notes) out << "   = " << st("1", "note") << ": " << printable(n) << '\n';
    if (d.help) out << "   = " << st("1;36", "help") << ": " << printable(*d.help) << '\n';
    for (const auto& fix : d.fixes)
      out << "   = " << st("1;36", fix.safe ? "fix" : "unsafe fix") << ": " << printable(fix.title) << '\n';
    out << '\n';
  }
  std::size_t errors = 0, warnings = 0, infos = 0;
  for (const auto& d : diags) {
    if (d.severity == Severity::Error)
      ++errors;
    else if (d.severity == Severity::Warning)
      ++warnings;
    else
      ++infos;
  }
  if (options.quiet) return;
  if (diags.empty()) {
    out << st("1;32", "All checks passed!") << '\n';
    return;
  }
  auto plural = [](std::size_t n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); };
  out << "Found " << plural(errors, "error") << ", " << plural(warnings, "warning") << ", " << plural(infos, "info")
      << ".\n";
}

}  // namespace trl
