// The release history (history_*.yaml): the generator's tables for three stored TRL releases
// (tests/history/expected_trl.yaml, checked against the generator by tests/history/
// check_generator.sh) loaded as knowledge, asked for the fields of a class at a release, and
// kept through the binary form; the trainers' tables give the positional orders of the trainers.
#include <algorithm>
#include <catch2/catch.hpp>

#include "analyzer/knowledge/knowledge.hpp"
#include "tests/unit/source_text.hpp"

using namespace trl;

namespace {

std::string read(const std::string& path) {
  return test::source_text(path);
}

// The classes as the newest release has them (hand-written form), a TrainingArguments base, and
// the history of the three stored releases.
const char* kClasses = R"(
classes:
  TrainingArguments:
    package: transformers
    source: src/transformers/training_args.py@v5.2.0
    fields:
      per_device_train_batch_size: {type: int, default: 8}
      gradient_checkpointing: {type: bool, default: false}
  SFTConfig:
    package: trl
    role: trainer_config
    trainer: sft
    bases: [TrainingArguments]
    source: trl/trainer/sft_config.py@v1.9.0
    fields:
      packing: {type: bool, default: false}
  GRPOConfig:
    package: trl
    role: trainer_config
    trainer: grpo
    bases: [TrainingArguments]
    source: trl/trainer/grpo_config.py@v1.9.0
    fields:
      vllm_mode: {type: str, default: colocate}
)";

Knowledge load() {
  return Knowledge::from_texts(
      {{"classes.yaml", kClasses}, {"history_trl.yaml", read("tests/history/expected_trl.yaml")}});
}

}  // namespace

TEST_CASE("history: the fields of a class at a release", "[history]") {
  const Knowledge k = load();
  const ClassInfo* sft = k.find("SFTConfig");
  REQUIRE(sft);
  const ClassInfo* old = k.at(*sft, "0.12.0");
  REQUIRE(old);
  CHECK(old->role == ClassRole::TrainerConfig);
  CHECK(old->bases == std::vector<std::string>{"TrainingArguments"});
  CHECK(k.field(*old, "max_seq_length"));
  CHECK_FALSE(k.field(*old, "max_length"));
  CHECK_FALSE(k.field(*old, "packing_strategy"));
  // Inherited fields come from the base class of this knowledge.
  REQUIRE(k.field(*old, "per_device_train_batch_size"));
  const FieldInfo* lr = k.field(*old, "learning_rate");
  REQUIRE(lr);
  CHECK(lr->default_value.kind == Scalar::Kind::Float);
  CHECK(lr->default_value.f == 2.0e-05);
  CHECK(lr->source == "trl/trainer/sft_config.py@v0.12.0..v1.9.0");

  const ClassInfo* mid = k.at(*sft, "0.21.0");
  REQUIRE(mid);
  CHECK_FALSE(k.field(*mid, "max_seq_length"));
  const FieldInfo* strategy = k.field(*mid, "packing_strategy");
  REQUIRE(strategy);
  CHECK(strategy->choices.empty());  // no choices in the 0.21.0 metadata
  const FieldInfo* max_length = k.field(*mid, "max_length");
  REQUIRE(max_length);
  CHECK(max_length->nullable);
  CHECK(max_length->default_value.i == 1024);

  const ClassInfo* newest = k.at(*sft, "1.9.0");
  REQUIRE(newest);
  REQUIRE(k.field(*newest, "packing_strategy"));
  CHECK(k.field(*newest, "packing_strategy")->choices == std::vector<std::string>{"bfd", "bfd_split", "wrapped"});
  // A TRL base's override flattened into the class, with its own file.
  const FieldInfo* gc = k.field(*newest, "gradient_checkpointing");
  REQUIRE(gc);
  CHECK(gc->default_value.b);
  CHECK(gc->source == "trl/trainer/base_config.py@v1.9.0");
  CHECK_FALSE(k.field(*newest, "_resolved"));  // field(init=False): no argument
  // The same class object for the same question.
  CHECK(k.at(*sft, "1.9.0") == newest);
}

TEST_CASE("history: releases between, before and after the scanned ones", "[history]") {
  const Knowledge k = load();
  const ClassInfo* sft = k.find("SFTConfig");
  const ClassInfo* grpo = k.find("GRPOConfig");
  REQUIRE(sft);
  REQUIRE(grpo);
  CHECK(k.history_covers("trl", "0.12.0"));
  CHECK(k.history_covers("trl", "0.15.2"));  // between two scanned releases: the older one holds
  CHECK_FALSE(k.history_covers("trl", "0.11.4"));
  CHECK_FALSE(k.history_covers("trl", "2.0.0"));
  CHECK_FALSE(k.history_covers("accelerate", "1.0.0"));
  CHECK_FALSE(k.at(*sft, "0.11.4"));
  CHECK_FALSE(k.at(*sft, "2.0.0"));
  // GRPOConfig did not exist in 0.12.0.
  CHECK_FALSE(k.at(*grpo, "0.12.0"));
  const ClassInfo* g21 = k.at(*grpo, "0.21.0");
  REQUIRE(g21);
  const FieldInfo* mode = k.field(*g21, "vllm_mode");
  REQUIRE(mode);
  CHECK(mode->default_value.s == "server");
  CHECK(mode->choices == std::vector<std::string>{"server", "colocate"});
  CHECK(k.field(*g21, "use_liger_loss"));
  const ClassInfo* g19 = k.at(*grpo, "1.9.0");
  REQUIRE(g19);
  CHECK(k.field(*g19, "vllm_mode")->default_value.s == "colocate");
  CHECK(k.field(*g19, "loss_type")->choices == std::vector<std::string>{"grpo", "dapo"});
  CHECK_FALSE(k.field(*g19, "use_liger_loss"));
}

TEST_CASE("history: when a missing field came or went", "[history]") {
  const Knowledge k = load();
  CHECK(k.field_change("SFTConfig", "max_length", "0.12.0") == "added in 0.21.0");
  CHECK(k.field_change("SFTConfig", "max_seq_length", "0.21.0") == "removed in 0.21.0 (last in 0.12.0)");
  CHECK(k.field_change("GRPOConfig", "use_liger_loss", "1.9.0") == "removed in 1.9.0 (last in 0.21.0)");
  CHECK(k.field_change("SFTConfig", "no_such_field", "0.12.0").empty());
  CHECK(k.field_change("NoSuchConfig", "packing", "0.12.0").empty());
}

TEST_CASE("history: kept through the binary form", "[history]") {
  const Knowledge yaml = load();
  const Knowledge blob = Knowledge::from_blob(yaml.to_blob());
  CHECK(blob.to_blob() == yaml.to_blob());
  const ClassInfo* sft = blob.find("SFTConfig");
  REQUIRE(sft);
  const ClassInfo* old = blob.at(*sft, "0.12.0");
  REQUIRE(old);
  REQUIRE(blob.field(*old, "learning_rate"));
  CHECK(blob.field(*old, "learning_rate")->source == "trl/trainer/sft_config.py@v0.12.0..v1.9.0");
  CHECK(blob.history("GRPOConfig"));
  // A damaged history is an error when it is first used, not a crash.
  std::string damaged = yaml.to_blob();
  damaged.resize(damaged.size() - 3);
  CHECK_THROWS(Knowledge::from_blob(damaged));
}

TEST_CASE("history: a range naming an unlisted release is refused", "[history]") {
  const char* bad = R"(
history:
  trl:
    releases: ['0.12.0']
    classes:
      SFTConfig:
        spans:
          - {from: '0.12.0', to: '0.13.0', file: trl/trainer/sft_config.py, bases: []}
)";
  CHECK_THROWS(Knowledge::from_texts({{"history_trl.yaml", bad}}));
}

TEST_CASE("history: the embedded history covers TRL 0.9.3 on and accelerate 0.30.0 on", "[history]") {
  const Knowledge& k = Knowledge::get();
  CHECK(k.history_covers("trl", "0.9.3"));
  CHECK(k.history_covers("trl", "0.21.0"));
  CHECK(k.history_covers("accelerate", "0.30.0"));
  const ClassInfo* grpo = k.find("GRPOConfig");
  REQUIRE(grpo);
  const ClassInfo* g = k.at(*grpo, "0.21.0");
  REQUIRE(g);
  // trl/trainer/grpo_config.py@v0.21.0: vllm_mode defaults to server; its help names the two modes.
  REQUIRE(k.field(*g, "vllm_mode"));
  CHECK(k.field(*g, "vllm_mode")->default_value.s == "server");
  CHECK(k.field(*g, "vllm_mode")->choices == std::vector<std::string>{"server", "colocate"});
  CHECK_FALSE(k.field(*g, "num_generations_eval"));  // from 0.26.0
}

namespace {

// Two trainers whose orders come from the stored releases' trainer tables; KTOTrainer keeps an
// order of a release before the history's first.
const char* kTrainers = R"(
classes:
  SFTTrainer:
    package: trl
    role: trainer
    init_positional_history: true
  KTOTrainer:
    package: trl
    role: trainer
    init_positional_history: true
    init_positional:
      - {from: "0.8.0", params: [model, ref_model, args, train_dataset, eval_dataset, tokenizer, data_collator], source: "trl/trainer/kto_trainer.py@v0.8.0..v0.8.6"}
)";

}  // namespace

TEST_CASE("history: the trainers' positional orders come from their __init__ tables", "[history]") {
  const Knowledge k = Knowledge::from_texts(
      {{"classes.yaml", kTrainers}, {"history_trl.yaml", read("tests/history/expected_trl.yaml")}});
  REQUIRE(k.trainer_history("SFTTrainer"));
  const ClassInfo* sft = k.find("SFTTrainer");
  REQUIRE(sft);
  // model, args, data_collator at the three releases: one order, cut after data_collator.
  REQUIRE(sft->init_positional.size() == 1);
  CHECK(sft->init_positional[0].from == "0.12.0");
  CHECK(sft->init_positional[0].params == std::vector<std::string>{"model", "args", "data_collator"});
  CHECK(sft->init_positional[0].source == "trl/trainer/sft_trainer.py@v0.12.0..v1.9.0 (release history)");
  const ClassInfo* kto = k.find("KTOTrainer");
  REQUIRE(kto);
  // The hand-kept order of 0.8.0, then processing_class where tokenizer was (0.12.0, 0.21.0), then
  // data_collator right after args (1.9.0).
  REQUIRE(kto->init_positional.size() == 3);
  CHECK(kto->init_positional[0].from == "0.8.0");
  CHECK(kto->init_positional[1].from == "0.12.0");
  CHECK(kto->init_positional[1].params == std::vector<std::string>{"model", "ref_model", "args", "train_dataset",
                                                                   "eval_dataset", "processing_class",
                                                                   "data_collator"});
  CHECK(kto->init_positional[1].source == "trl/trainer/kto_trainer.py@v0.12.0..v0.21.0 (release history)");
  CHECK(kto->init_positional[2].from == "1.9.0");
  CHECK(kto->init_positional[2].params == std::vector<std::string>{"model", "ref_model", "args", "data_collator"});
  // The binary form keeps the tables as they are, and the orders derived from them.
  const Knowledge blob = Knowledge::from_blob(k.to_blob());
  const TrainerHistory* kept = blob.trainer_history("SFTTrainer");
  REQUIRE(kept);
  const TrainerHistory* read_yaml = k.trainer_history("SFTTrainer");
  REQUIRE(kept->spans.size() == read_yaml->spans.size());
  REQUIRE(kept->params.size() == read_yaml->params.size());
  for (const auto& [name, spans] : read_yaml->params) {
    INFO(name);
    REQUIRE(kept->params.count(name));
    const auto& got = kept->params.at(name);
    REQUIRE(got.size() == spans.size());
    for (std::size_t i = 0; i < spans.size(); ++i) {
      CHECK(got[i].from == spans[i].from);
      CHECK(got[i].to == spans[i].to);
      CHECK(got[i].pos == spans[i].pos);
      CHECK(got[i].kind == spans[i].kind);
      CHECK(got[i].deprecated == spans[i].deprecated);
      CHECK(got[i].new_name == spans[i].new_name);
      CHECK(got[i].source == spans[i].source);
    }
  }
  CHECK(blob.to_blob() == k.to_blob());
  REQUIRE(blob.find("KTOTrainer"));
  CHECK(blob.find("KTOTrainer")->init_positional.size() == 3);
}

TEST_CASE("history: the keywords a trainer's __init__ takes at a release", "[history]") {
  const Knowledge k = Knowledge::from_texts(
      {{"classes.yaml", kTrainers}, {"history_trl.yaml", read("tests/history/expected_trl.yaml")}});
  auto has = [](const Knowledge::TrainerKeywords& t, const char* name) {
    return std::find(t.names.begin(), t.names.end(), name) != t.names.end();
  };
  // 0.12.0: `tokenizer` is accepted as deprecate_kwarg's old name of `processing_class`.
  const auto at_0_12 = k.trainer_keywords("SFTTrainer", "0.12.0");
  REQUIRE(at_0_12);
  CHECK(has(*at_0_12, "processing_class"));
  CHECK(has(*at_0_12, "tokenizer"));
  CHECK(has(*at_0_12, "dataset_text_field"));
  CHECK_FALSE(has(*at_0_12, "compute_loss_func"));
  CHECK(at_0_12->source == "trl/trainer/sft_trainer.py@v0.12.0");
  // A release between two scanned ones is judged at the one before it: 0.15.2 as 0.12.0.
  const auto between = k.trainer_keywords("SFTTrainer", "0.15.2");
  REQUIRE(between);
  CHECK(between->names == at_0_12->names);
  CHECK(between->source == "trl/trainer/sft_trainer.py@v0.12.0");
  const auto newest = k.trainer_keywords("SFTTrainer", "1.9.0");
  REQUIRE(newest);
  CHECK(has(*newest, "compute_loss_func"));
  CHECK_FALSE(has(*newest, "tokenizer"));
  CHECK_FALSE(has(*newest, "dataset_text_field"));
  // Outside the history, or a trainer it does not have: nothing to judge by.
  CHECK_FALSE(k.trainer_keywords("SFTTrainer", "0.11.4"));
  CHECK_FALSE(k.trainer_keywords("SFTTrainer", "1.10.0"));
  CHECK_FALSE(k.trainer_keywords("NoSuchTrainer", "1.9.0"));
  // The same through the binary form.
  const Knowledge blob = Knowledge::from_blob(k.to_blob());
  const auto from_blob = blob.trainer_keywords("SFTTrainer", "0.12.0");
  REQUIRE(from_blob);
  CHECK(from_blob->names == at_0_12->names);
}

TEST_CASE("history: a trainer that takes **kwargs, or whose __init__ the history does not follow, is not judged",
          "[history]") {
  const char* history = R"(
history:
  trl:
    releases: ['0.11.4', '0.12.0']
    trainers:
      GKDTrainer:
        spans:
          - {from: '0.11.4', to: '0.12.0', file: trl/trainer/gkd_trainer.py, bases: [SFTTrainer]}
        params:
          teacher_model: [{from: '0.11.4', to: '0.12.0', pos: 0, kind: pos}]
          kwargs: [{from: '0.11.4', to: '0.11.4', pos: 3, kind: varkw}]
      BaseTrainer:
        spans:
          - {from: '0.12.0', to: '0.12.0', file: trl/trainer/base_trainer.py, bases: [Trainer], init: unknown}
)";
  const Knowledge k = Knowledge::from_texts({{"history_trl.yaml", history}});
  CHECK_FALSE(k.trainer_keywords("GKDTrainer", "0.11.4"));
  const auto later = k.trainer_keywords("GKDTrainer", "0.12.0");
  REQUIRE(later);
  CHECK(later->names == std::vector<std::string>{"teacher_model"});
  CHECK_FALSE(k.trainer_keywords("BaseTrainer", "0.12.0"));
}

TEST_CASE("history: a hand-kept order the trainer history gives, or a trainer it lacks, is refused", "[history]") {
  const std::string history = read("tests/history/expected_trl.yaml");
  const char* scanned = R"(
classes:
  SFTTrainer:
    init_positional_history: true
    init_positional:
      - {from: "0.12.0", params: [model, args, data_collator], source: "trl/trainer/sft_trainer.py@v0.12.0"}
)";
  CHECK_THROWS(Knowledge::from_texts({{"classes.yaml", scanned}, {"history_trl.yaml", history}}));
  const char* unknown = R"(
classes:
  DPOTrainer:
    init_positional_history: true
)";
  CHECK_THROWS(Knowledge::from_texts({{"classes.yaml", unknown}, {"history_trl.yaml", history}}));
  // Without the mark, the hand-kept orders stand as written.
  const char* plain = R"(
classes:
  SFTTrainer:
    init_positional:
      - {from: "0.12.0", params: [model, args, data_collator], source: "trl/trainer/sft_trainer.py@v0.12.0"}
)";
  const Knowledge k = Knowledge::from_texts({{"classes.yaml", plain}, {"history_trl.yaml", history}});
  REQUIRE(k.find("SFTTrainer"));
  CHECK(k.find("SFTTrainer")->init_positional.size() == 1);
}

TEST_CASE("history: trainer keywords' versions from the stored releases", "[history]") {
  const char* renames = R"(
renames:
  - {class: SFTTrainer, old: tokenizer, new: processing_class, source: "trl/trainer/sft_trainer.py@v0.12.0"}
  - {class: SFTTrainer, old: packing, new: null, source: "trl/trainer/sft_trainer.py@v0.12.0"}
  - {class: KTOTrainer, old: tokenizer, new: processing_class, source: "trl/trainer/kto_trainer.py@v0.12.0"}
)";
  const Knowledge k = Knowledge::from_texts({{"fields.yaml", renames},
                                             {"classes.yaml", kTrainers},
                                             {"history_trl.yaml", read("tests/history/expected_trl.yaml")}});
  REQUIRE(k.renames().size() == 3);
  // deprecate_kwarg takes `tokenizer` at 0.12.0; 0.21.0, the next stored release, does not. 0.12.0
  // is the first stored release: the deprecation may be older, and the source says so.
  const Rename& tok = k.renames()[0];
  CHECK(tok.deprecated == "0.12.0");
  CHECK(tok.deprecated_or_earlier);
  CHECK(tok.deprecated_source ==
        "trl/trainer/sft_trainer.py@v0.12.0 (release history: deprecate_kwarg takes it for `processing_class` already "
        "at its first release)");
  CHECK(tok.removed == "0.21.0");
  CHECK(tok.removed_source ==
        "trl/trainer/sft_trainer.py@v0.12.0 (release history: not an __init__ parameter in v0.21.0)");
  // Listed by _deprecate_arguments at 0.12.0.
  const Rename& packing = k.renames()[1];
  CHECK(packing.deprecated == "0.12.0");
  CHECK(packing.deprecated_or_earlier);
  CHECK(packing.deprecated_source ==
        "trl/trainer/sft_trainer.py@v0.12.0 (release history: the __init__ deprecates it already at its first "
        "release)");
  CHECK(packing.removed == "0.21.0");
  // KTOTrainer at 0.12.0 has no `tokenizer` at all: nothing the tables describe.
  const Rename& kto = k.renames()[2];
  CHECK_FALSE(k.rename_history(kto).described);
  CHECK(kto.deprecated.empty());
  CHECK(kto.removed.empty());
}

TEST_CASE("history: a base of another library at that library's release", "[history]") {
  const Knowledge k =
      Knowledge::from_texts({{"classes.yaml", kClasses},
                             {"history_trl.yaml", read("tests/history/expected_trl.yaml")},
                             {"history_transformers.yaml", read("tests/history/expected_transformers.yaml")}});
  const ClassInfo* sft = k.find("SFTConfig");
  REQUIRE(sft);
  // TRL 0.21.0's SFTConfig over transformers 4.40.0's TrainingArguments: the base's fields of that
  // release are flattened in, the class's own kept, and the base no longer looked up by name.
  const ClassInfo* trl_old = k.at(*sft, "0.21.0");
  REQUIRE(trl_old);
  const ClassInfo* both = k.with_bases_at(*trl_old, "transformers", "4.40.0");
  REQUIRE(both);
  CHECK(both != trl_old);
  CHECK(both->bases.empty());
  CHECK(k.field(*both, "packing"));
  CHECK(k.field(*both, "evaluation_strategy"));
  CHECK_FALSE(k.field(*both, "eval_strategy"));                // from 4.46.0 in the stored releases
  CHECK_FALSE(k.field(*both, "per_device_train_batch_size"));  // not in the excerpts: the newest list is not used
  // A release between two stored ones is judged by the one before it: 4.46.3 by 4.46.0.
  const ClassInfo* mid = k.with_bases_at(*sft, "transformers", "4.46.3");
  REQUIRE(mid);
  CHECK(k.field(*mid, "eval_strategy"));
  CHECK(k.field(*mid, "use_ipex"));
  const FieldInfo* save = k.field(*mid, "save_strategy");
  REQUIRE(save);
  CHECK(std::find(save->choices.begin(), save->choices.end(), "best") == save->choices.end());
  // At 4.47.0 SaveStrategy accepts `best`; use_ipex is gone.
  const ClassInfo* newer = k.with_bases_at(*sft, "transformers", "4.47.0");
  REQUIRE(newer);
  save = k.field(*newer, "save_strategy");
  REQUIRE(save);
  CHECK(std::find(save->choices.begin(), save->choices.end(), "best") != save->choices.end());
  CHECK_FALSE(k.field(*newer, "use_ipex"));
  // Built once per class and release.
  CHECK(k.with_bases_at(*sft, "transformers", "4.47.0") == newer);
  // Outside the history, or the class's own library: the class itself.
  CHECK(k.with_bases_at(*sft, "transformers", "4.39.0") == sft);
  CHECK(k.with_bases_at(*sft, "transformers", "5.2.0") == sft);
  CHECK(k.with_bases_at(*sft, "trl", "0.21.0") == sft);
}
