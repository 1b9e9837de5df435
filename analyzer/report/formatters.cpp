#include "analyzer/report/formatters.hpp"

#include <algorithm>

#include "analyzer/source/source_file.hpp"

namespace trl {

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7F) {
      out += c;
      continue;
    }
    append_utf8(out, u == 0x7F ? 0x2421 : 0x2400 + u);
  }
  return out;
}

const std::vector<std::string>& output_format_names() {
  static const std::vector<std::string> names = {"full", "concise", "json", "json-lines", "github", "sarif"};
  return names;
}

std::optional<OutputFormat> parse_output_format(std::string_view name) {
  if (name == "full") return OutputFormat::Full;
  if (name == "concise") return OutputFormat::Concise;
  if (name == "json") return OutputFormat::Json;
  if (name == "json-lines") return OutputFormat::JsonLines;
  if (name == "github") return OutputFormat::Github;
  if (name == "sarif") return OutputFormat::Sarif;
  return std::nullopt;
}

std::string summary_line(std::size_t files, std::size_t runs, const std::vector<Diagnostic>& diags) {
  auto plural = [](std::size_t n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); };
  std::size_t errors = 0, warnings = 0, infos = 0;
  for (const auto& d : diags) {
    if (d.severity == Severity::Error)
      ++errors;
    else if (d.severity == Severity::Warning)
      ++warnings;
    else
      ++infos;
  }
  std::string found;
  for (auto [n, word] : {std::pair{errors, "error"}, std::pair{warnings, "warning"}, std::pair{infos, "info"}})
    if (n) found += (found.empty() ? "" : ", ") + plural(n, word);
  std::string line = "Checked " + plural(files, "file");
  if (runs == 0) {
    line += ": no training run found";
    if (!found.empty()) line += "; " + found;
  } else {
    line += ", " + plural(runs, "run") + ": " + (found.empty() ? std::string("no findings") : found);
  }
  const auto safe = static_cast<std::size_t>(std::count_if(diags.begin(), diags.end(), fixable));
  if (safe) line += "; [*] " + std::to_string(safe) + " fixable with `--fix`";
  return line;
}

void print_report(std::ostream& out, OutputFormat format, const std::vector<Diagnostic>& diags, const Project& project,
                  const ReportOptions& options) {
  switch (format) {
    case OutputFormat::Full: print_full(out, diags, project, options); return;
    case OutputFormat::Concise: print_concise(out, diags, project); return;
    case OutputFormat::Json: print_json(out, diags, project); return;
    case OutputFormat::JsonLines: print_json_lines(out, diags, project); return;
    case OutputFormat::Github: print_github(out, diags, project); return;
    case OutputFormat::Sarif: print_sarif(out, diags, project); return;
  }
}

}  // namespace trl
