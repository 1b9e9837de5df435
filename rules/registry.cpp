#include "rules/registry.hpp"

namespace trl {

// The factories, each defined in its rule's own file (rules/rules.def lists them).
#define TRL_RULE(code, factory) std::unique_ptr<Rule> make_##factory();
#include "rules/rules.def"
#undef TRL_RULE

const std::vector<std::unique_ptr<Rule>>& all_rules() {
  static const std::vector<std::unique_ptr<Rule>> rules = [] {
    std::vector<std::unique_ptr<Rule>> r;
#define TRL_RULE(code, factory) r.push_back(make_##factory());
#include "rules/rules.def"
#undef TRL_RULE
    return r;
  }();
  return rules;
}

std::string RuleInfo::severity_text() const {
  std::string text = to_string(severity);
  if (!severity_note.empty()) text += "; " + severity_note;
  return text;
}

const Rule* find_rule(std::string_view code) {
  for (const auto& r : all_rules())
    if (r->info().code == code || r->info().name == code) return r.get();
  return nullptr;
}

const RuleInfo* find_rule_info(std::string_view code) {
  const Rule* r = find_rule(code);
  return r ? &r->info() : nullptr;
}

std::vector<const RuleInfo*> all_rule_infos() {
  std::vector<const RuleInfo*> out;
  for (const auto& r : all_rules()) out.push_back(&r->info());
  return out;
}

const std::vector<RuleFamily>& rule_families() {
  static const std::vector<RuleFamily> families = {
#define TRL_FAMILY(digit, folder, tag, title, tool) RuleFamily{digit, folder, tag, title, tool},
#include "rules/families.def"
#undef TRL_FAMILY
  };
  return families;
}

const RuleFamily* family_of_code(std::string_view code) {
  if (code.size() < 4 || code.substr(0, 3) != "TRL") return nullptr;
  for (const auto& f : rule_families())
    if (f.digit == code[3]) return &f;
  return nullptr;
}

const char* rule_family(std::string_view code) {
  const RuleFamily* f = family_of_code(code);
  return f ? f->tag : "other";
}

std::string rule_doc_url(std::string_view code) {
  return "https://github.com/trl-lint/trl-lint/blob/main/docs/rules/" + std::string(code) + ".md";
}

}  // namespace trl
