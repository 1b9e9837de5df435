// `--output-format github`: one GitHub Actions workflow command per finding, which the runner
// turns into an annotation on the file and line:
//   ::error file=PATH,line=L,col=C,endLine=EL,endColumn=EC,title=TRL101 (name)::MESSAGE
// error -> `error`, warning -> `warning`, info -> `notice`. The message carries the related
// locations and the help on further lines. Escaping follows the runner: `%`, CR and LF in the
// message; also `:` and `,` in property values. Columns as everywhere: 1-based code points,
// the end exclusive.
#include "analyzer/report/formatters.hpp"
#include "analyzer/report/location.hpp"

namespace trl {

std::string github_escape_data(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '%': out += "%25"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string github_escape_property(std::string_view s) {
  std::string out;
  for (char c : github_escape_data(s)) {
    switch (c) {
      case ':': out += "%3A"; break;
      case ',': out += "%2C"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

namespace {

const char* command(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "notice";
  }
  return "error";
}

}  // namespace

void print_github(std::ostream& out, const std::vector<Diagnostic>& diags, const Project& project) {
  for (const auto& d : diags) {
    const Position start = start_position(project, d.span);
    const Position end = end_position(project, d.span);
    std::string message = d.message;
    for (const auto& r : d.related) {
      if (!r.span.valid()) continue;
      const Position p = start_position(project, r.span);
      message += "\nnote: " + project.sources.get(r.span.file).path + ":" + std::to_string(p.line) + ":" +
                 std::to_string(p.column) + ": " + r.message;
    }
    if (d.help) message += "\nhelp: " + *d.help;
    out << "::" << command(d.severity) << " file=" << github_escape_property(project.sources.get(d.span.file).path)
        << ",line=" << start.line << ",col=" << start.column << ",endLine=" << end.line << ",endColumn=" << end.column
        << ",title=" << github_escape_property(d.code + " (" + d.name + ")") << "::" << github_escape_data(message)
        << '\n';
  }
}

}  // namespace trl
