// What a rule reports: a code, a severity, a message, a primary span, related spans with
// their own messages (the provenance of each conflicting value), a help line and fixes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyzer/source/source_file.hpp"

namespace trl {

enum class Severity { Error, Warning, Info };
const char* to_string(Severity s);

struct RelatedLocation {
  Span span;
  std::string message;
  // The launch line of the run the finding was judged in. A finding several launches reach lists
  // each (sort_diagnostics), and a `noqa` on one of those lines silences that launch only.
  bool launch = false;
};

struct TextEdit {
  Span span;
  std::string replacement;
};

struct Fix {
  std::string title;
  std::vector<TextEdit> edits;
  bool safe = true;
};

struct Diagnostic {
  std::string code;  // "TRL101"
  std::string name;  // "packing-with-context-parallelism"
  Severity severity = Severity::Error;
  std::string message;
  Span span;
  std::string label;  // short text under the primary span
  std::vector<RelatedLocation> related;
  std::vector<std::string> notes;  // free-standing notes without a location
  std::optional<std::string> help;
  std::vector<Fix> fixes;
  // Set by a rule where several runs or scripts reach one place and may judge it differently
  // (other target versions, another launch in `related`): the findings of one code at the same
  // place (file and start of the primary span) with the same merge key are one, the first judged
  // (runs in order, then scripts, then files; finish_diagnostics). Never shown.
  std::optional<std::string> merge_key;
};

}  // namespace trl
