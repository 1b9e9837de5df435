// Turns Python source into the IR of facts/python_ir.hpp. Error-tolerant: statements that
// parse are kept even when others do not.
#pragma once

#include <string_view>
#include <vector>

#include "analyzer/facts/file_facts.hpp"
#include "analyzer/facts/python_ir.hpp"

namespace trl::python {

struct PythonFacts {
  py::Module module;
  std::vector<FileProblem> problems;
  std::vector<Comment> comments;
};

PythonFacts extract(std::string_view text, FileId file);

// Decodes a Python string literal's body (escapes, raw prefix). Exposed for tests.
std::string decode_string_literal(std::string_view literal, bool& is_fstring_with_fields);

}  // namespace trl::python
