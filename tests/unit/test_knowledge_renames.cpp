// The versions of the renames (TRL5xx): read from the release history (history_*.yaml) where it
// describes the old name, and kept in the hand-written list (the `renames:` of fields_*.yaml) only
// where it cannot show them. The hand-written versions are checked against the history here.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/eval/version_targets.hpp"
#include "analyzer/knowledge/knowledge.hpp"

using namespace trl;
namespace fs = std::filesystem;

namespace {

// rules/knowledge/*.yaml in name order; without the history files when `history` is false.
std::vector<std::pair<std::string, std::string>> knowledge_files(bool history) {
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(fs::path(TRL_LINT_SOURCE_DIR) / "rules/knowledge"))
    if (e.path().extension() == ".yaml" && (history || e.path().filename().string().rfind("history_", 0) != 0))
      paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    files.emplace_back(p.filename().string(), s.str());
  }
  return files;
}

std::string describe(const Rename& r) {
  return r.cls + "." + r.old_name;
}

// What is wrong with the versions `hand` (a rename as the hand-written list has it) states, given
// what the history shows of it: one line per problem, none when they agree.
std::vector<std::string> disagreements(const Rename& hand, const RenameHistory& h) {
  std::vector<std::string> out;
  if (!h.described) return out;  // transformers, value renames: only the list knows them
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

TEST_CASE("renames: the hand-written versions agree with the release history", "[knowledge][renames]") {
  const Knowledge full = Knowledge::from_texts(knowledge_files(true));
  // The same files without the history: the renames as the list states them, nothing derived.
  const Knowledge hand = Knowledge::from_texts(knowledge_files(false));
  REQUIRE(hand.renames().size() == full.renames().size());
  std::size_t described = 0;
  for (const Rename& r : hand.renames()) {
    const RenameHistory h = full.rename_history(r);
    described += h.described;
    for (const std::string& problem : disagreements(r, h)) FAIL_CHECK(problem);
  }
  // Most TRL config renames and every TRL trainer keyword are read from the history (a drop here
  // means the history lost them).
  CHECK(described >= 55 + 48);
}

TEST_CASE("renames: the embedded renames carry the history's versions and their source", "[knowledge][renames]") {
  const Knowledge& k = Knowledge::get();
  auto find = [&](std::string_view cls, std::string_view old) -> const Rename* {
    for (const Rename& r : k.renames())
      if (!r.is_value && r.cls == cls && r.old_name == old) return &r;
    return nullptr;
  };
  // trl/trainer/sft_config.py: help text "deprecated" from v0.16.0, last in v0.19.1.
  const Rename* max_seq = find("SFTConfig", "max_seq_length");
  REQUIRE(max_seq);
  CHECK(max_seq->deprecated == "0.16.0");
  CHECK_FALSE(max_seq->deprecated_or_earlier);  // 0.16.0 is not the history's first release
  CHECK(max_seq->removed == "0.20.0");
  CHECK(max_seq->deprecated_source.rfind("trl/trainer/sft_config.py@v0.16.0..v0.19.1 (release history", 0) == 0);
  CHECK(max_seq->removed_source.rfind("trl/trainer/sft_config.py@v0.16.0..v0.19.1 (release history", 0) == 0);
  CHECK(max_seq->removed_source.find("not in v0.20.0") != std::string::npos);
  // dpo_config.py: the field exists from v0.13.0 and is marked deprecated from v0.15.0 on.
  const Rename* logits = find("DPOConfig", "use_num_logits_to_keep");
  REQUIRE(logits);
  CHECK(logits->deprecated == "0.15.0");
  CHECK(logits->removed == "0.17.0");
  // Deprecated by a warning only (no help text): the version the list states, with its source.
  const Rename* liger = find("GRPOConfig", "use_liger_loss");
  REQUIRE(liger);
  CHECK(liger->deprecated == "0.25.0");
  CHECK(liger->deprecated_source.find("grpo_config.py@v0.25.0") != std::string::npos);
  CHECK(liger->removed == "0.28.0");
  // trl.KTOConfig subclassed trl.experimental's from v0.26.0: the history does not see the field
  // there, so its removal comes from the list.
  const Rename* kto = find("KTOConfig", "use_liger_loss");
  REQUIRE(kto);
  CHECK(kto->removed == "0.28.0");
  CHECK_FALSE(k.rename_history(*kto).removal_known);
  CHECK(kto->removed_source.find("trl/experimental/kto/kto_config.py") != std::string::npos);
  // Still a field of the newest release: deprecated, not removed.
  const Rename* paged = find("GRPOConfig", "use_transformers_paged");
  REQUIRE(paged);
  CHECK(paged->deprecated == "1.2.0");
  CHECK(paged->removed.empty());
  // Trainer keywords: from the trainers' __init__ tables. trl/trainer/sft_trainer.py: deprecate_kwarg
  // takes `tokenizer` for `processing_class` from v0.12.0 to v0.15.2.
  const Rename* tok = find("SFTTrainer", "tokenizer");
  REQUIRE(tok);
  CHECK(tok->deprecated == "0.12.0");
  CHECK(tok->removed == "0.16.0");
  CHECK(tok->removed_source.rfind("trl/trainer/sft_trainer.py@v0.12.0..v0.15.2 (release history", 0) == 0);
  // KTOTrainer had no `tokenizer` at all in v0.12.0; v0.12.1 took it back through deprecate_kwarg.
  const Rename* kto_tok = find("KTOTrainer", "tokenizer");
  REQUIRE(kto_tok);
  CHECK(kto_tok->deprecated == "0.12.1");
  CHECK(kto_tok->removed == "0.14.0");
  // _deprecate_arguments of trl/trainer/dpo_trainer.py lists `beta` from v0.9.3 to v0.12.2.
  const Rename* beta = find("DPOTrainer", "beta");
  REQUIRE(beta);
  CHECK(beta->deprecated == "0.9.3");
  CHECK(beta->removed == "0.13.0");
  CHECK(beta->deprecated_source.find("the __init__ deprecates it") != std::string::npos);
  // The embedded knowledge keeps the tables too.
  CHECK(k.trainer_history("SFTTrainer"));
  CHECK(k.rename_history(*tok).described);
  const Knowledge full = Knowledge::from_texts(knowledge_files(true));
  CHECK(full.rename_history(*tok).described);
}

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

TEST_CASE("renames: a trainer keyword's stated versions are checked against the trainer history",
          "[knowledge][renames]") {
  const char* renames = R"(
renames:
  - {class: YTrainer, old: tokenizer, new: processing_class, source: "trl/trainer/y_trainer.py@v0.2.0"}
  - {class: YTrainer, old: beta, new: null, source: "trl/trainer/y_trainer.py@v0.2.0"}
  - {class: YTrainer, old: gamma, new: null, source: "trl/trainer/y_trainer.py@v0.2.0"}
  - {class: ZTrainer, old: delta, new: null, source: "trl/trainer/z_trainer.py@v0.2.0"}
)";
  // tokenizer: a parameter at 0.1.0, taken by deprecate_kwarg at 0.2.0, gone at 0.3.0. beta: listed
  // deprecated at 0.2.0, in the newest release. gamma: gone at 0.4.0, whose __init__ takes
  // **kwargs. ZTrainer's delta: gone where the class inherits an __init__ the history does not
  // follow.
  const char* history = R"(
history:
  trl:
    releases: ['0.1.0', '0.2.0', '0.3.0', '0.4.0']
    trainers:
      YTrainer:
        spans:
          - {from: '0.1.0', to: '0.4.0', file: trl/trainer/y_trainer.py, bases: [Trainer]}
        params:
          tokenizer: [{from: '0.1.0', to: '0.1.0', pos: 2, kind: pos, default: null}, {from: '0.2.0', to: '0.2.0', kind: alias, deprecated: true, new: processing_class}]
          beta: [{from: '0.1.0', to: '0.1.0', pos: 3, kind: pos, default: 0.1}, {from: '0.2.0', to: '0.4.0', pos: 3, kind: pos, default: 0.1, deprecated: true}]
          gamma: [{from: '0.1.0', to: '0.3.0', pos: 4, kind: kw, default: null}]
          kwargs: [{from: '0.4.0', to: '0.4.0', pos: 4, kind: varkw}]
      ZTrainer:
        spans:
          - {from: '0.1.0', to: '0.2.0', file: trl/trainer/z_trainer.py, bases: [Trainer]}
          - {from: '0.3.0', to: '0.4.0', file: trl/trainer/z_trainer.py, bases: [Trainer], init: unknown}
        params:
          delta: [{from: '0.1.0', to: '0.2.0', pos: 0, kind: pos, default: null}]
)";
  const Knowledge k = Knowledge::from_texts({{"fields.yaml", renames}, {"history_trl.yaml", history}});
  REQUIRE(k.renames().size() == 4);
  const Rename& tok = k.renames()[0];
  CHECK(tok.deprecated == "0.2.0");
  CHECK(tok.removed == "0.3.0");
  const Rename& beta = k.renames()[1];
  CHECK(beta.deprecated == "0.2.0");
  CHECK(beta.removed.empty());
  CHECK(k.rename_history(beta).removal_known);
  // **kwargs at the next release may take the old name: its removal is not shown.
  const Rename& gamma = k.renames()[2];
  CHECK(gamma.removed.empty());
  CHECK_FALSE(k.rename_history(gamma).removal_known);
  const Rename& delta = k.renames()[3];
  CHECK(delta.removed.empty());
  CHECK_FALSE(k.rename_history(delta).removal_known);

  // A list stating versions the trainer history contradicts fails the check of the list; one
  // stating what it gives is told to leave them out.
  Rename stated = tok;
  stated.deprecated = "0.1.0";  // before the history's 0.2.0, with no source for it
  stated.deprecated_source.clear();
  stated.removed = "0.4.0";  // the history says 0.3.0
  stated.removed_source.clear();
  const std::vector<std::string> problems = disagreements(stated, k.rename_history(tok));
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].find("needs `deprecated_source`") != std::string::npos);
  CHECK(problems[1].find("says 0.3.0") != std::string::npos);
  Rename same = tok;
  same.deprecated_source.clear();
  same.removed_source.clear();
  CHECK(disagreements(same, k.rename_history(tok)).size() == 2);  // both "leave it out"
}
