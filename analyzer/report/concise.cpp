// `--output-format concise`: `path:line:col: CODE message`, one finding per line, nothing else.
// A stable contract (scripts and editors parse it): keep it byte for byte. Control characters
// in paths and messages are shown as control pictures (`printable`), so one finding is one line.
#include "analyzer/report/formatters.hpp"

namespace trl {

void print_concise(std::ostream& out, const std::vector<Diagnostic>& diags, const Project& project) {
  for (const auto& d : diags) {
    const SourceFile& f = project.sources.get(d.span.file);
    out << printable(f.path) << ':' << d.span.start.line + 1 << ':' << f.display_column(d.span.start) << ": " << d.code
        << ' ' << printable(d.message) << '\n';
  }
}

}  // namespace trl
