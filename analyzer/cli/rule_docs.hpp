// `trl-lint rule`: a rule's documentation page, the list of every rule, and the Markdown pages
// of docs/rules/ (one per rule, an index by family), all from the rule sources.
#pragma once

#include <string>

namespace trl {

// `rule CODE` prints its page; `rule --all` lists every rule with its severity and summary.
// Returns the exit code (2 for an unknown code).
int print_rule(const std::string& code, bool all);

// `rule --markdown-dir DIR`: writes DIR/<CODE>.md for every rule and DIR/README.md, an index by
// family. Returns the exit code.
int write_markdown(const std::string& dir);

}  // namespace trl
