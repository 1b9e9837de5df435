// Problems found while reading or parsing a file, reported under their own codes, and the
// file's comments.
#pragma once

#include <string>
#include <vector>

#include "analyzer/source/source_file.hpp"

namespace trl {

struct FileProblem {
  std::string code;  // TRL9xx
  std::string message;
  Span span;  // may be invalid: then the problem is reported at 1:1 of the file
};

// A comment as the file's own syntax defines it (`#` to the end of the line in Python, YAML,
// shell and Makefiles; never a `#` inside a string). Suppression comments are read from these.
struct Comment {
  Span span;         // from the `#` to the end of the comment
  std::string text;  // the comment's text, `#` included
};

}  // namespace trl
