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
};

}  // namespace trl
