#include "analyzer/report/report.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "rules/registry.hpp"

namespace trl {

bool Selection::enabled(const std::string& code) const {
  auto matches = [&](const std::vector<std::string>& list) {
    for (const auto& s : list)
      if (s == "ALL" || code.rfind(s, 0) == 0) return true;
    return false;
  };
  if (!select.empty() && !matches(select)) return false;
  return !matches(ignore);
}

std::vector<Diagnostic> collect_diagnostics(const Project& project, const std::vector<TrainingRun>& runs,
                                            const Selection& selection) {
  std::vector<Diagnostic> out;
  for (FileId id = 0; id < project.facts.size(); ++id) {
    for (const auto& p : project.facts[id].problems) {
      const RuleInfo* info = file_problem_info(p.code);
      Diagnostic d;
      d.code = p.code;
      d.name = info ? info->name : "";
      d.severity = info ? info->severity : Severity::Warning;
      d.message = p.message;
      d.span = p.span.valid() ? p.span : Span{id};
      if (!p.span.valid() || p.span.file == kNoFile) d.span = Span{id};
      out.push_back(std::move(d));
    }
  }
  for (const auto& rule : all_rules()) {
    if (!selection.enabled(rule->info().code)) continue;
    for (const auto& run : runs) rule->check_run(run, project, out);
    rule->check_project(project, runs, out);
  }
  std::erase_if(out, [&](const Diagnostic& d) { return !selection.enabled(d.code); });
  auto key = [&](const Diagnostic& d) {
    const std::string& path = project.sources.get(d.span.file).path;
    return std::tie(path, d.span.start.line, d.span.start.column, d.code, d.message);
  };
  std::stable_sort(out.begin(), out.end(), [&](const Diagnostic& a, const Diagnostic& b) { return key(a) < key(b); });
  // The same finding reached through several runs (one YAML used by two launches) is reported once.
  out.erase(
      std::unique(out.begin(), out.end(), [&](const Diagnostic& a, const Diagnostic& b) { return key(a) == key(b); }),
      out.end());
  return out;
}

void print_concise(std::ostream& out, const std::vector<Diagnostic>& diags, const Project& project) {
  for (const auto& d : diags) {
    const SourceFile& f = project.sources.get(d.span.file);
    out << f.path << ':' << d.span.start.line + 1 << ':' << f.display_column(d.span.start) << ": " << d.code << ' '
        << d.message << '\n';
  }
}

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
  out << pad << st("1;34", "--> ") << f.path << ':' << line + 1 << ':' << f.display_column(span.start) << '\n';
  if (f.text.empty()) return;  // a file we could not read has no code to show
  std::string text(f.line_text(line));
  std::replace(text.begin(), text.end(), '\t', ' ');
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
  if (!label.empty()) out << ' ' << st(caret_color, label);
  out << '\n';
}

}  // namespace

void print_full(std::ostream& out, const std::vector<Diagnostic>& diags, const Project& project, bool color) {
  Style st{color};
  for (const auto& d : diags) {
    const std::string sev = to_string(d.severity);
    out << st(severity_color(d.severity).c_str(), sev + "[" + d.code + "]") << st("1", ": " + d.message) << '\n';
    frame(out, project, d.span, d.label, st, severity_color(d.severity).c_str());
    for (const auto& r : d.related) {
      out << st("1;32", "note") << ": " << r.message << '\n';
      frame(out, project, r.span, "", st, "1;32");
    }
    for (const auto& n : d.notes) out << "   = " << st("1", "note") << ": " << n << '\n';
    if (d.help) out << "   = " << st("1;36", "help") << ": " << *d.help << '\n';
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
  if (diags.empty()) {
    out << st("1;32", "All checks passed!") << '\n';
    return;
  }
  auto plural = [](std::size_t n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); };
  out << "Found " << plural(errors, "error") << ", " << plural(warnings, "warning") << ", " << plural(infos, "info")
      << ".\n";
}

namespace {

std::string where(const Setting& s, const Project& project) {
  std::string out = s.origin.empty() ? "unset" : s.origin;
  if (s.span.valid()) {
    const SourceFile& f = project.sources.get(s.span.file);
    out += " at " + f.path + ":" + std::to_string(s.span.start.line + 1) + ":" +
           std::to_string(f.display_column(s.span.start));
  }
  return out;
}

std::string value_text(const Setting& s) {
  switch (s.state) {
    case Setting::State::Unset: return "(unset)";
    case Setting::State::Unknown: return "(unknown)";
    case Setting::State::Known: return s.value.yaml();
    case Setting::State::OneOf: return "one of: " + s.describe();
  }
  return "";
}

std::string file_or_dash(FileId id, const Project& project) {
  return id == kNoFile ? "-" : project.sources.get(id).path;
}

}  // namespace

void print_runs(std::ostream& out, const std::vector<TrainingRun>& runs, const Project& project) {
  for (const auto& r : runs) {
    out << r.name << "  " << (r.launch ? to_string(r.launch->launcher) : "(no launch)") << "  "
        << (r.script_display.empty() ? "-" : r.script_display) << "  trainer=" << (r.trainer.empty() ? "?" : r.trainer)
        << "  config=" << file_or_dash(r.trainer_yaml, project)
        << "  accelerate=" << file_or_dash(r.accelerate_yaml, project) << "  cp=" << value_text(r.cp_size) << '\n';
  }
}

void print_run(std::ostream& out, const TrainingRun& r, const Project& project) {
  out << "run: " << r.name << '\n';
  out << "launcher: " << (r.launch ? to_string(r.launch->launcher) : "(none: script run directly)") << '\n';
  out << "script: " << (r.script_display.empty() ? "-" : r.script_display)
      << (r.script == kNoFile ? "" : " (" + project.sources.get(r.script).path + ")") << '\n';
  out << "trainer: " << (r.trainer.empty() ? "unknown" : r.trainer) << '\n';
  out << "trainer config: " << file_or_dash(r.trainer_yaml, project) << '\n';
  out << "accelerate config: " << file_or_dash(r.accelerate_yaml, project) << '\n';
  out << "topology:\n";
  out << "  cp_size = " << value_text(r.cp_size) << "  # " << where(r.cp_size, project) << '\n';
  out << "  sp_size = " << value_text(r.sp_size) << "  # " << where(r.sp_size, project) << '\n';
  out << "trainer arguments set explicitly:\n";
  for (const auto& [name, s] : r.args)
    out << "  " << name << " = " << value_text(s) << "  # " << where(s, project) << '\n';
}

}  // namespace trl
