// Every rule trl-lint ships, in code order.
#pragma once

#include <memory>
#include <vector>

#include "rules/rule.hpp"

namespace trl {

const std::vector<std::unique_ptr<Rule>>& all_rules();
const Rule* find_rule(std::string_view code);
// Rule metadata for the codes of file problems (TRL9xx), which the pipeline reports itself.
const RuleInfo* file_problem_info(std::string_view code);

}  // namespace trl
