// Finds the comments of a Makefile: `#` to the end of the line outside recipes (unless escaped
// as `\#`), and shell comments in recipe lines (a `#` outside quotes that starts a word).
// Makefiles have no extractor yet; their comments are all suppressions need.
#pragma once

#include <string_view>
#include <vector>

#include "analyzer/facts/file_facts.hpp"

namespace trl::makefile {

std::vector<Comment> comments(std::string_view text, FileId file);

}  // namespace trl::makefile
