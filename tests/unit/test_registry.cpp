// The rule registry: one rule per code, in code order, each with a kebab-case name and the
// documentation sections every rule page has.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "rules/registry.hpp"

TEST_CASE("registry: every code once, in order, with a name, a summary and its doc sections") {
  const auto& rules = trl::all_rules();
  REQUIRE(rules.size() >= 33);
  std::set<std::string> codes, names;
  std::string previous;
  for (const auto& r : rules) {
    const auto& info = r->info();
    INFO(info.code);
    CHECK(codes.insert(info.code).second);
    CHECK(names.insert(info.name).second);
    CHECK(info.code > previous);
    previous = info.code;
    CHECK(info.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos);
    CHECK_FALSE(info.summary.empty());
    for (const char* section : {"## What it does", "## Why is this bad?"})
      CHECK(info.doc.find(section) != std::string::npos);
    // trl-lint's own findings (TRL9xx: an unreadable file, a parse error) have no library
    // behaviour to cite, and most no configuration to show.
    const trl::RuleFamily* family = trl::family_of_code(info.code);
    REQUIRE(family);
    if (!family->tool)
      for (const char* section : {"## Example", "## References"}) CHECK(info.doc.find(section) != std::string::npos);
    CHECK(trl::find_rule(info.code) == r.get());
    CHECK(trl::find_rule(info.name) == r.get());
  }
}

TEST_CASE("registry: trl-lint's own codes (TRL9xx) are rules like the others, in their own family") {
  for (const char* code : {"TRL901", "TRL902", "TRL903", "TRL904", "TRL905", "TRL906", "TRL910"}) {
    INFO(code);
    const trl::Rule* r = trl::find_rule(code);
    REQUIRE(r);
    CHECK(trl::find_rule(r->info().name) == r);
    CHECK(trl::find_rule_info(code) == &r->info());
    const trl::RuleFamily* family = trl::family_of_code(code);
    REQUIRE(family);
    CHECK(family->tool);
    CHECK(std::string(family->folder) == "tool");
  }
  for (const auto& f : trl::rule_families()) CHECK(f.tool == (f.digit == '9'));
  const auto infos = trl::all_rule_infos();
  CHECK(infos.size() == trl::all_rules().size());
}

TEST_CASE("the rule table lists each rule under its own code") {
  // rules/rules.def names each rule's code beside its factory; scripts/new-rule keeps the table
  // in code order by reading those codes.
  const std::vector<std::string> table = {
#define TRL_RULE(code, factory) #code,
#include "rules/rules.def"
#undef TRL_RULE
  };
  const auto& rules = trl::all_rules();
  REQUIRE(table.size() == rules.size());
  for (std::size_t i = 0; i < table.size(); ++i) CHECK(table[i] == rules[i]->info().code);
}
