// Counts the syntax errors tree-sitter finds in a text of a given kind; used to check that a
// fixed file parses at least as well as the original before it is written.
#pragma once

#include <cstddef>
#include <string_view>

#include "analyzer/source/source_file.hpp"

namespace trl {

// ERROR and MISSING nodes in the tree of `text` (Python, YAML, shell); 0 for kinds without a
// grammar. A text tree-sitter gives up on counts as one error.
std::size_t syntax_error_count(FileKind kind, std::string_view text);

}  // namespace trl
