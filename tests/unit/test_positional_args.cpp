// Arguments passed by position to a trainer, read through the trainer's recorded __init__ order
// (rules/knowledge/trainer_signatures.yaml).
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/knowledge/knowledge.hpp"
#include "rules/support/rule_support.hpp"

using namespace trl;

namespace {

Construction call_of(std::string_view cls, std::vector<ValueRef> positional) {
  Construction c;
  c.cls = Knowledge::get().find(cls);
  REQUIRE(c.cls);
  c.qualified = "trl." + std::string(cls);
  c.positional = std::move(positional);
  return c;
}

VersionTarget trl_at(std::optional<std::string> version) {
  VersionTarget t;
  t.library = "trl";
  t.version = std::move(version);
  return t;
}

ValueRef object() {
  return make_unknown();
}
ValueRef none() {
  return make_const(Scalar::null(), {});
}

}  // namespace

TEST_CASE("positional data_collator: SFTTrainer's third parameter at every release") {
  using rules::Passed;
  for (const auto& v :
       {std::optional<std::string>("0.19.0"), std::optional<std::string>("1.9.0"), std::optional<std::string>()}) {
    CHECK(rules::positional_passed(call_of("SFTTrainer", {object(), object(), object()}), "data_collator", trl_at(v)) ==
          Passed::Unknown);
    CHECK(rules::positional_passed(call_of("SFTTrainer", {object(), object(), none(), object()}), "data_collator",
                                   trl_at(v)) == Passed::None);
    CHECK(rules::positional_passed(call_of("SFTTrainer", {object(), object()}), "data_collator", trl_at(v)) ==
          Passed::Absent);
  }
  CHECK(rules::positional_passed(call_of("SFTTrainer", {}), "data_collator", trl_at({})) == Passed::Absent);
  // A release before the first recorded order: not known what the position binds to.
  CHECK(rules::positional_passed(call_of("SFTTrainer", {object()}), "data_collator", trl_at("0.4.0")) ==
        Passed::Unknown);
}

TEST_CASE("positional data_collator: DPOTrainer's position follows the TRL version") {
  using rules::Passed;
  // model, ref_model, args, data_collator (v0.13.0 on) / model, ref_model, beta, label_smoothing,
  // loss_type, args, data_collator (v0.7.5..v0.12.2).
  const Construction four = call_of("DPOTrainer", {object(), none(), object(), object()});
  CHECK(rules::positional_passed(four, "data_collator", trl_at("1.9.0")) == Passed::Unknown);
  CHECK(rules::positional_passed(four, "data_collator", trl_at("0.12.2")) == Passed::Absent);
  CHECK(rules::positional_passed(four, "data_collator", trl_at("0.5.0")) == Passed::Absent);
  // Unknown version: the 4th argument is the collator at some releases.
  CHECK(rules::positional_passed(four, "data_collator", trl_at({})) == Passed::Unknown);
  const Construction three = call_of("DPOTrainer", {object(), none(), object()});
  CHECK(rules::positional_passed(three, "data_collator", trl_at({})) == Passed::Absent);
  const Construction five = call_of("DPOTrainer", {object(), none(), object(), object(), object()});
  CHECK(rules::positional_passed(five, "data_collator", trl_at("0.5.0")) == Passed::Unknown);
  CHECK(rules::positional_passed(five, "data_collator", trl_at("0.7.3")) == Passed::Absent);
}

TEST_CASE("positional data_collator: KTOTrainer moved it, GKDTrainer forwarded *args, Trainer is not recorded") {
  using rules::Passed;
  const Construction four = call_of("KTOTrainer", {object(), none(), object(), object()});
  CHECK(rules::positional_passed(four, "data_collator", trl_at("1.8.0")) == Passed::Unknown);
  CHECK(rules::positional_passed(four, "data_collator", trl_at("1.7.1")) == Passed::Absent);
  CHECK(rules::positional_passed(four, "data_collator", trl_at({})) == Passed::Unknown);
  CHECK(rules::positional_passed(call_of("GKDTrainer", {object(), object()}), "data_collator", trl_at("0.11.4")) ==
        Passed::Unknown);
  CHECK(rules::positional_passed(call_of("GKDTrainer", {object(), object(), object()}), "data_collator",
                                 trl_at("0.12.0")) == Passed::Absent);
  CHECK(rules::positional_passed(call_of("Trainer", {object()}), "data_collator", trl_at("1.9.0")) == Passed::Unknown);
}

TEST_CASE("positional orders: hand-kept before TRL 0.9.3, from the trainer history after") {
  // The `def __init__` of each class at the huggingface/trl tags: v0.4.2..v0.8.6 hand-kept
  // (trainer_signatures.yaml), v0.9.3 on derived from history_trl.yaml's trainer tables.
  using Order = std::pair<std::string, std::vector<std::string>>;
  const std::map<std::string, std::vector<Order>> expected = {
      {"SFTTrainer", {{"0.4.2", {"model", "args", "data_collator"}}}},
      {"RewardTrainer", {{"0.4.2", {"model", "args", "data_collator"}}}},
      {"DPOTrainer",
       {{"0.5.0", {"model", "ref_model", "beta", "args", "data_collator"}},
        {"0.7.3", {"model", "ref_model", "beta", "loss_type", "args", "data_collator"}},
        {"0.7.5", {"model", "ref_model", "beta", "label_smoothing", "loss_type", "args", "data_collator"}},
        {"0.13.0", {"model", "ref_model", "args", "data_collator"}}}},
      {"KTOTrainer",
       {{"0.8.0", {"model", "ref_model", "args", "train_dataset", "eval_dataset", "tokenizer", "data_collator"}},
        {"0.12.0",
         {"model", "ref_model", "args", "train_dataset", "eval_dataset", "processing_class", "data_collator"}},
        {"1.8.0", {"model", "ref_model", "args", "data_collator"}}}},
      // 0.11: (teacher_model, args, *sft_args): not knowable.
      {"GKDTrainer", {{"0.11.0", {}}, {"0.12.0", {"model", "teacher_model", "args", "data_collator"}}}},
  };
  for (const auto& [name, orders] : expected) {
    const ClassInfo* cls = Knowledge::get().find(name);
    REQUIRE(cls);
    std::vector<Order> got;
    for (const PositionalParams& pp : cls->init_positional) got.emplace_back(pp.from, pp.params);
    CHECK(got == orders);
    for (const PositionalParams& pp : cls->init_positional) CHECK_FALSE(pp.source.empty());
  }
  // An order that holds across the history's first release cites both sources.
  const ClassInfo* sft = Knowledge::get().find("SFTTrainer");
  CHECK(sft->init_positional[0].source ==
        "trl/trainer/sft_trainer.py@v0.4.2..v0.8.6; trl/trainer/sft_trainer.py@v0.9.3..v1.9.0 (release history)");
  // KTOTrainer forwarded *args to trl/experimental from 0.26.0 to 1.7.1: the order read through it.
  const ClassInfo* kto = Knowledge::get().find("KTOTrainer");
  CHECK(kto->init_positional[1].source.find("trl/experimental/kto/kto_trainer.py@v0.26.0..v1.7.1 (through "
                                            "trl/trainer/kto_trainer.py)") != std::string::npos);
}
