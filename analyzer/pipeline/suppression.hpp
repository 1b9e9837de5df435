// Suppression comments: `# noqa`, `# noqa: TRL101, TRL102` at the end of a line, and
// `# trl-lint: noqa` / `# trl-lint: noqa: TRL101` anywhere in a file for the whole file.
// A finding is suppressed by a matching comment at its primary location or at any related
// location (a cross-file finding can be silenced in whichever file the user owns). Codes of
// other tools in the same comment (`# noqa: E501, TRL101`) are ignored. Suppressions that name
// an enabled rule and suppress nothing are reported as TRL910 (unused-noqa).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/pipeline/judge.hpp"
#include "analyzer/project/project.hpp"

namespace trl {

struct NoqaCode {
  std::string code;  // as written, upper-cased
  Span span;
};

struct NoqaDirective {
  bool file_level = false;      // `# trl-lint: noqa`
  bool blanket = false;         // no codes: every code
  Span span;                    // the directive, from its `#` to the end of its code list
  Span comment;                 // the whole comment it sits in
  std::vector<NoqaCode> codes;  // every code listed, trl-lint's and other tools'
  // `# noqa:` followed by no code (`# noqa: packing-with-context-parallelism`, `# noqa:TRL101x`,
  // `# noqa:` alone): the directive suppresses nothing (as ruff reads it) and TRL910 says why.
  bool invalid = false;
  std::string invalid_word;  // what stands where the first code should be (empty: nothing)
};

// The directives of one comment (`text` starts with `#`; `span` is the comment's).
std::vector<NoqaDirective> parse_noqa(std::string_view text, const Span& span);

// The edit that silences `codes` on line `line` of `file`: `  # noqa: A, B` at the end of the
// line, or the codes a `noqa` there lacks appended to its list. Null when there is nothing to add,
// when the file kind takes no `#` comment (JSON, notebooks: their lines are JSON strings), or
// when the line ends in a backslash (a comment there would end the command or statement, and the
// lines after it would run on their own).
std::optional<TextEdit> noqa_edit(const Project& project, FileId file, std::uint32_t line,
                                  const std::vector<std::string>& codes);

// Whether the configuration of `file` enables `code` (its `select` / `ignore`, not
// `per-file-ignores`).
using EnabledInFile = std::function<bool(FileId file, const std::string& code)>;

// Removes suppressed findings from `diags` and appends TRL910 findings for unused directives
// (when TRL910 is enabled); keeps `diags` sorted. Returns how many findings were suppressed.
// A directive's code is judged unused only when `selection` and, when given, `enabled_in` for
// the directive's file enable it.
std::size_t apply_suppressions(const Project& project, std::vector<Diagnostic>& diags, const Selection& selection,
                               const EnabledInFile& enabled_in = {});

}  // namespace trl
