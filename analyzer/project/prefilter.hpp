// The pre-filter of load_project: Python files that cannot matter are read but not parsed.
// A file is deferred when its text has no training-related name (trl, transformers, accelerate,
// peft, deepspeed, Trainer, dynamic imports) and no comment addressed to trl-lint (`noqa`,
// `trl-lint:`). load_project then parses every deferred file that the other files reach: a word
// of a non-Python file (launch lines, configurations, documents) equal to its stem, or an import
// of a parsed module. TRL_LINT_NO_PREFILTER=1 in the environment parses every file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/project/project.hpp"

namespace trl {

// True when a Python file's text may matter to some run or rule (a conservative substring test).
bool python_may_matter(std::string_view text);
// The same answer, one byte at a time: what python_may_matter does without SSE2 (tests compare
// the two).
bool python_may_matter_bytewise(std::string_view text);

// True for a Python file that is read but has no facts: deferred by the pre-filter (or empty).
bool python_deferred(const Project& project, FileId id);

// The name a deferred Python file is reached by: the stem of the last component of `path` (as
// std::filesystem::path::stem), or for `__init__.py` the name of its folder. A view into `path`.
std::string_view python_reach_name(std::string_view path);

// Parses the deferred Python files that `names` (file stems, module path components) or the
// imports of parsed modules reach, until nothing new is reached. Idempotent.
void extract_referenced(Project& project, const std::vector<std::string>& names);

}  // namespace trl
