// The rule registry: one rule per code, in code order, each with a kebab-case name and the
// documentation sections every rule page has.
#include <catch2/catch.hpp>
#include <set>
#include <string>

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
    for (const char* section : {"## What it does", "## Why is this bad?", "## Example", "## References"})
      CHECK(info.doc.find(section) != std::string::npos);
    CHECK(trl::find_rule(info.code) == r.get());
    CHECK(trl::find_rule(info.name) == r.get());
  }
}
