// Every rule trl-lint ships, in code order.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rules/rule.hpp"

namespace trl {

const std::vector<std::unique_ptr<Rule>>& all_rules();
const Rule* find_rule(std::string_view code);
// find_rule's info, or null.
const RuleInfo* find_rule_info(std::string_view code);
// Every code trl-lint can report, in code order: the rules' infos, trl-lint's own (TRL9xx,
// rules/tool/) last.
std::vector<const RuleInfo*> all_rule_infos();
// A family of rules (rules/families.def, the one table of them).
struct RuleFamily {
  char digit;          // the hundreds digit of its codes
  const char* folder;  // under rules/
  const char* tag;     // SARIF tag: "configuration", "parallelism", ...
  const char* title;   // "TRL1xx: parallelism topology"
  bool tool;           // trl-lint's own findings (TRL9xx), reported by the stage that finds them
};
const std::vector<RuleFamily>& rule_families();
// The family of a code, or null.
const RuleFamily* family_of_code(std::string_view code);
// The family tag of a code, for tags and grouping: "configuration" (TRL0xx), "parallelism"
// (TRL1xx), ... and "trl-lint" for trl-lint's own codes (TRL9xx); "other" for none.
const char* rule_family(std::string_view code);
// Where a rule's documentation is published.
std::string rule_doc_url(std::string_view code);

}  // namespace trl
