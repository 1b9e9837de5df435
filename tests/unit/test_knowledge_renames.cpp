// The versions of the renames (TRL5xx): read from the release history (history_*.yaml) where it
// describes the old name, and kept in the hand-written list (the `renames:` of fields_*.yaml) only
// where it cannot show them.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "analyzer/eval/version_targets.hpp"
#include "analyzer/knowledge/knowledge.hpp"

using namespace trl;

namespace {

std::string describe(const Rename& r) {
  return r.cls + "." + r.old_name;
}

// What is wrong with the versions `hand` (a rename as the hand-written list has it) states, given
// what the history shows of it: one line per problem, none when they agree.
std::vector<std::string> disagreements(const Rename& hand, const RenameHistory& h) {
  std::vector<std::string> out;
  if (!h.described) return out;  // trainer keywords, transformers: only the list knows them
  const std::string who = describe(hand);
  if (!hand.deprecated.empty()) {
    if (hand.deprecated == h.deprecated)
      out.push_back(who + ": deprecated " + hand.deprecated + " is what the history gives (" + h.deprecated_source +
                    "): leave it out of the list");
    else if (!h.removed.empty() && compare_versions(hand.deprecated, h.removed) >= 0)
      out.push_back(who + ": deprecated " + hand.deprecated + " is not before its removal in " + h.removed + " (" +
                    h.removed_source + ")");
    else if (hand.deprecated_source.empty())
      out.push_back(who + ": deprecated " + hand.deprecated + ", the history " +
                    (h.deprecated.empty() ? "marks no release deprecated"
                                          : "says " + h.deprecated + " (" + h.deprecated_source + ")") +
                    ": a version the help text does not show needs `deprecated_source`");
    else if (!h.deprecated.empty() && compare_versions(hand.deprecated, h.deprecated) > 0)
      out.push_back(who + ": deprecated " + hand.deprecated + " is after the history's " + h.deprecated + " (" +
                    h.deprecated_source + ")");
  }
  if (!hand.removed.empty()) {
    if (h.removal_known && hand.removed == h.removed)
      out.push_back(who + ": removed " + hand.removed + " is what the history gives (" + h.removed_source +
                    "): leave it out of the list");
    else if (h.removal_known)
      out.push_back(who + ": removed " + hand.removed + ", the history " +
                    (h.removed.empty() ? std::string("has it in the newest release")
                                       : "says " + h.removed + " (" + h.removed_source + ")"));
    else if (hand.removed_source.empty())
      out.push_back(who + ": removed " + hand.removed +
                    ", which the history cannot show (a base it does not follow): needs `removed_source`");
  }
  return out;
}

}  // namespace

TEST_CASE("renames: versions derived from a small history", "[knowledge][renames]") {
  const char* classes = R"(
classes:
  TrainingArguments:
    package: transformers
    source: src/transformers/training_args.py@v5.2.0
  XConfig:
    package: trl
    bases: [TrainingArguments]
    source: trl/trainer/x_config.py@v0.4.0
  YConfig:
    package: trl
    bases: [XConfig]
    source: trl/trainer/y_config.py@v0.4.0
renames:
  - {class: XConfig, old: a, new: b, source: "trl/trainer/x_config.py@v0.2.0"}
  - {class: XConfig, old: c, new: null, source: "trl/trainer/x_config.py@v0.2.0"}
  - {class: XConfig, old: d, new: null, deprecated: "0.1.0", deprecated_source: "trl/trainer/x_config.py@v0.1.0 L9", source: "trl/trainer/x_config.py@v0.1.0"}
  - {class: YConfig, old: a, new: b, source: "trl/trainer/x_config.py@v0.2.0"}
  - {class: XConfig, old: e, new: null, source: "trl/trainer/x_config.py@v0.2.0"}
  - {class: XTrainer, old: tokenizer, new: processing_class, deprecated: "0.1.0", removed: "0.3.0", source: "trl/trainer/x_trainer.py@v0.2.0"}
)";
  const char* history = R"(
history:
  trl:
    releases: ['0.1.0', '0.2.0', '0.3.0', '0.4.0']
    classes:
      XConfig:
        spans:
          - {from: '0.1.0', to: '0.3.0', file: trl/trainer/x_config.py, bases: [TrainingArguments]}
          - {from: '0.4.0', to: '0.4.0', file: trl/trainer/x_config.py, bases: [_XConfig]}
        fields:
          a: [{from: '0.1.0', to: '0.1.0', type: int}, {from: '0.2.0', to: '0.2.0', type: int, deprecated: true}]
          c: [{from: '0.1.0', to: '0.4.0', type: int}]
          d: [{from: '0.1.0', to: '0.1.0', type: int}, {from: '0.2.0', to: '0.4.0', type: int, deprecated: true}]
          e: [{from: '0.1.0', to: '0.3.0', type: int}]
)";
  const Knowledge k = Knowledge::from_texts({{"fields.yaml", classes}, {"history_trl.yaml", history}});
  REQUIRE(k.renames().size() == 6);
  const Rename& a = k.renames()[0];
  CHECK(a.deprecated == "0.2.0");
  CHECK(a.deprecated_source == "trl/trainer/x_config.py@v0.2.0 (release history: the help text says deprecated)");
  CHECK(a.removed == "0.3.0");
  CHECK(a.removed_source == "trl/trainer/x_config.py@v0.2.0 (release history: not in v0.3.0)");
  // In the newest release, never marked: nothing to derive, but the history shows it is not removed.
  const Rename& c = k.renames()[1];
  CHECK(c.deprecated.empty());
  CHECK(c.removed.empty());
  CHECK(k.rename_history(c).removal_known);
  // A version the list states wins; the derived one fills the other.
  const Rename& d = k.renames()[2];
  CHECK(d.deprecated == "0.1.0");
  CHECK(d.deprecated_source == "trl/trainer/x_config.py@v0.1.0 L9");
  CHECK(d.removed.empty());
  // Through a base: YConfig takes XConfig's history.
  const Rename& y = k.renames()[3];
  CHECK(y.deprecated == "0.2.0");
  CHECK(y.removed == "0.3.0");
  // Gone after 0.3.0, but 0.4.0 inherits from a class the history does not follow: not derived.
  const Rename& e = k.renames()[4];
  const RenameHistory he = k.rename_history(e);
  CHECK(he.described);
  CHECK_FALSE(he.removal_known);
  CHECK(e.removed.empty());
  // No history for the trainer: the list's versions, no version sources.
  const Rename& t = k.renames()[5];
  CHECK_FALSE(k.rename_history(t).described);
  CHECK(t.removed == "0.3.0");
  CHECK(t.removed_source.empty());

  // The checks of the hand-written list, on this one.
  const RenameHistory ha = k.rename_history(a);
  Rename stated = a;
  stated.deprecated = "0.2.0";  // what the history gives: redundant
  stated.removed = "0.4.0";     // contradicts the history
  const std::vector<std::string> problems = disagreements(stated, ha);
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].find("leave it out") != std::string::npos);
  CHECK(problems[1].find("says 0.3.0") != std::string::npos);
  Rename early = a;
  early.deprecated = "0.1.0";  // earlier than the help text, no source given
  early.deprecated_source.clear();
  early.removed.clear();
  CHECK(disagreements(early, ha).size() == 1);
  early.deprecated_source = "trl/trainer/x_config.py@v0.1.0 L12 (warning in __post_init__)";
  CHECK(disagreements(early, ha).empty());
  Rename gap = e;
  gap.removed = "0.4.0";  // the history cannot show it: needs its own source
  CHECK(disagreements(gap, he).size() == 1);
  gap.removed_source = "trl/x/x_config.py@v0.3.0..v0.4.0";
  CHECK(disagreements(gap, he).empty());
  // A source without its version is refused.
  const char* orphan = R"(
renames:
  - {class: XConfig, old: a, new: b, deprecated_source: "somewhere", source: "x"}
)";
  CHECK_THROWS(Knowledge::from_texts({{"fields.yaml", orphan}}));
}
