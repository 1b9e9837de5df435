// Problems found while reading or parsing a file, reported under their own codes.
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

}  // namespace trl
