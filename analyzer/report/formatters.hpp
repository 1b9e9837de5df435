// The output formats of `--output-format`, one file each:
//   full        code frames, notes and help, then a summary line       (full.cpp)
//   concise     path:line:col: CODE message                           (concise.cpp)
//   json        one array of finding objects                          (json.cpp)
//   json-lines  one finding object per line                           (json.cpp)
//   github      GitHub Actions workflow commands (`::error file=...`)  (github.cpp)
//   sarif       SARIF 2.1.0 for GitHub code scanning                   (sarif.cpp)
// and `--statistics` (statistics.cpp). Columns are 1-based and count Unicode code points in
// every format (SARIF says so with `columnKind: unicodeCodePoints`).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/project/project.hpp"

namespace trl {

enum class OutputFormat { Full, Concise, Json, JsonLines, Github, Sarif };

// The names `--output-format` accepts, in the order `--help` lists them.
const std::vector<std::string>& output_format_names();
std::optional<OutputFormat> parse_output_format(std::string_view name);

struct ReportOptions {
  bool color = false;  // full: ANSI colours
};

// The line that ends a check, for every output format (on stderr): how many files were read, how
// many training runs were judged, and the findings reported by severity, e.g.
// `Checked 412 files, 9 runs: 3 errors, 1 warning`, `Checked 12 files: no training run found`.
// A check that found no run never reads as a pass.
std::string summary_line(std::size_t files, std::size_t runs, const std::vector<Diagnostic>& diags);

void print_report(std::ostream& out, OutputFormat format, const std::vector<Diagnostic>& diags, const Project& project,
                  const ReportOptions& options);

void print_full(std::ostream& out, const std::vector<Diagnostic>& diags, const Project& project,
                const ReportOptions& options);
void print_concise(std::ostream& out, const std::vector<Diagnostic>& diags, const Project& project);
void print_json(std::ostream& out, const std::vector<Diagnostic>& diags, const Project& project);
void print_json_lines(std::ostream& out, const std::vector<Diagnostic>& diags, const Project& project);
void print_github(std::ostream& out, const std::vector<Diagnostic>& diags, const Project& project);
void print_sarif(std::ostream& out, const std::vector<Diagnostic>& diags, const Project& project);

// `--statistics`: one line per code with its count, most frequent first (a JSON array for the
// json formats).
void print_statistics(std::ostream& out, const std::vector<Diagnostic>& diags, bool json);

// The escaping of GitHub workflow commands: `%`, CR and LF in the message; also `:` and `,`
// in property values.
std::string github_escape_data(std::string_view s);
std::string github_escape_property(std::string_view s);

// Text for one line of a terminal: each control character (U+0000-U+001F, U+007F) becomes its
// Unicode control picture (U+2400-U+241F, U+2421), one code point for one, so a file named
// "a<LF>b.py" stays on its `path:line:col` line, an escape sequence in a file never reaches the
// terminal, and carets under a code frame stay aligned. Tabs are for the caller to handle.
std::string printable(std::string_view s);

// True when `--fix` applies a fix of `d` (a safe one), as the `[*]` marks say.
inline bool fixable(const Diagnostic& d) {
  for (const auto& f : d.fixes)
    if (f.safe) return true;
  return false;
}

// Percent-encodes a relative path for a URI (RFC 3986 path characters are kept).
std::string uri_path(std::string_view path);

}  // namespace trl
