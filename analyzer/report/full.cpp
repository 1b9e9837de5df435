// `--output-format full` (the default): each finding with a code frame under its primary
// location, a note and frame per related location, free notes and the help line. The summary
// line is the command line's, on stderr (print_summary).
#include <locale.h>

#include <algorithm>
#include <cwchar>

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

// The terminal columns UTF-8 text takes: two for a wide code point (CJK, most emoji), none for a
// combining mark, as wcwidth says under C.UTF-8 (set for this thread only, while counting); one
// for a byte that starts no valid sequence and for a code point wcwidth does not know. Without
// that locale, one per code point.
std::size_t columns(std::string_view s) {
  static const locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  std::size_t n = 0;
  if (!utf8) {
    for (char c : s)
      if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
    return n;
  }
  const locale_t previous = uselocale(utf8);
  std::mbstate_t state{};
  for (std::size_t i = 0; i < s.size();) {
    wchar_t wc = 0;
    const std::size_t len = std::mbrtowc(&wc, s.data() + i, s.size() - i, &state);
    if (len == static_cast<std::size_t>(-1) || len == static_cast<std::size_t>(-2) || len == 0) {
      state = std::mbstate_t{};
      ++n;
      ++i;
      continue;
    }
    const int w = wcwidth(wc);
    n += w < 0 ? 1 : static_cast<std::size_t>(w);
    i += len;
  }
  uselocale(previous);
  return n;
}

// The columns of `line`'s bytes [0, byte) as the frame prints them (tabs as one space, control
// characters as their pictures).
std::size_t shown_columns(std::string_view line, std::size_t byte) {
  std::string prefix(line.substr(0, std::min(byte, line.size())));
  std::replace(prefix.begin(), prefix.end(), '\t', ' ');
  return columns(printable(prefix));
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
  const std::string_view raw = f.line_text(line);
  std::string text(raw);
  std::replace(text.begin(), text.end(), '\t', ' ');
  text = printable(text);
  out << pad << ' ' << st("1;34", "|") << '\n';
  out << st("1;34", number + " |") << ' ' << text << '\n';
  // Carets under the span's columns on a terminal: a wide character before it or in it takes two.
  const std::size_t col = shown_columns(raw, span.start.column);
  const std::size_t line_end = columns(text);
  std::size_t width;
  if (span.stop.line == line && span.end > span.begin) {
    const std::size_t stop = shown_columns(raw, span.stop.column);
    width = stop > col ? stop - col : 1;
  } else {
    width = line_end > col ? line_end - col : 1;
  }
  if (width == 0) width = 1;
  // A span wider than a screen's useful part (a whole launch command) is marked by its first word
  // (`accelerate`, `torchrun`): a row of 150 carets under the line says no more than that.
  constexpr std::size_t kMaxCarets = 60;
  if (width > kMaxCarets) {
    const std::size_t start = std::min<std::size_t>(span.start.column, raw.size());
    std::size_t word_end = start;
    while (word_end < raw.size() && raw[word_end] != ' ' && raw[word_end] != '\t') ++word_end;
    const std::size_t word = shown_columns(raw, word_end) - col;
    width = std::clamp<std::size_t>(word, 1, kMaxCarets);
  }
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
    // `[*]`: a safe fix is there for `--fix` (as ruff marks it; the summary line counts them).
    out << st(severity_color(d.severity).c_str(), sev + "[" + d.code + "]") << (fixable(d) ? st("1;36", " [*]") : "")
        << st("1", ": " + printable(d.message)) << '\n';
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
}

}  // namespace trl
