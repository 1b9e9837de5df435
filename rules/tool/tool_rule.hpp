// The rule of a TRL9xx code (rules/tool/tool_rules.hpp): its metadata, and no checks of its own.
#pragma once

#include <memory>

#include "rules/rule.hpp"
#include "rules/tool/tool_rules.hpp"

namespace trl::tool_rules {

class ToolRule final : public Rule {
 public:
  explicit ToolRule(const RuleInfo& info) : info_(info) {}
  const RuleInfo& info() const override { return info_; }

 private:
  const RuleInfo& info_;
};

}  // namespace trl::tool_rules
