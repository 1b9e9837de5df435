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
  sort_diagnostics(project, out);
  return out;
}

void sort_diagnostics(const Project& project, std::vector<Diagnostic>& diags) {
  auto key = [&](const Diagnostic& d) {
    const std::string& path = project.sources.get(d.span.file).path;
    return std::tie(path, d.span.start.line, d.span.start.column, d.code, d.message);
  };
  std::stable_sort(diags.begin(), diags.end(),
                   [&](const Diagnostic& a, const Diagnostic& b) { return key(a) < key(b); });
  // The same finding reached through several runs (one YAML used by two launches) is reported once.
  diags.erase(std::unique(diags.begin(), diags.end(),
                          [&](const Diagnostic& a, const Diagnostic& b) { return key(a) == key(b); }),
              diags.end());
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
