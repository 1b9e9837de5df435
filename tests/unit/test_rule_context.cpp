// RuleContext (rules/rule_context.hpp): what a rule reads besides its part, built once per judging
// pass. Files and YAML documents by id (out of range: none), version targets computed once per
// anchor, a run's script evaluated once for its trainer calls, whatever the threads asking.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "analyzer/eval/run_builder.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/pipeline/rule_context_builder.hpp"
#include "rules/rule_context.hpp"

using namespace trl;

namespace {

FileId id_of(const Project& p, const std::string& path) {
  for (FileId id = 0; id < p.sources.size(); ++id)
    if (p.sources.get(id).path == path) return id;
  FAIL("no file " << path);
  return kNoFile;
}

VersionTargets trl_at(const std::string& version) {
  VersionTargets t;
  t.trl.library = "trl";
  t.trl.version = version;
  return t;
}

Construction call_of(std::string_view cls) {
  Construction c;
  c.cls = Knowledge::get().find(cls);
  REQUIRE(c.cls);
  c.qualified = "trl." + std::string(cls);
  return c;
}

Span span_in(FileId file) {
  Span s;
  s.file = file;
  s.end = 1;
  return s;
}

// Asks `ask` from several threads at once.
template <typename Fn>
void from_threads(Fn ask) {
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int i = 0; i < 4; ++i) threads.emplace_back(ask);
  for (auto& t : threads) t.join();
}

}  // namespace

TEST_CASE("rule context: the project's files and their YAML documents, none out of range", "[rule-context]") {
  Project p = make_project("/proj", {{"recipes/sft.yaml", "packing: true\nmax_length: 1024\n"},
                                     {"recipes/list.yaml", "- packing\n- max_length\n"},
                                     {"recipes/empty.yaml", ""},
                                     {"train.py", "print('hi')\n"}});
  const RuleContext context = make_rule_context(p);
  const FileId sft = id_of(p, "recipes/sft.yaml"), list = id_of(p, "recipes/list.yaml");
  const FileId empty = id_of(p, "recipes/empty.yaml"), py = id_of(p, "train.py");

  REQUIRE(context.file(sft));
  CHECK(context.file(sft)->path == "recipes/sft.yaml");
  CHECK(context.file(py)->kind == FileKind::Python);
  CHECK(context.file(kNoFile) == nullptr);
  CHECK(context.file(static_cast<FileId>(p.sources.size())) == nullptr);

  REQUIRE(context.yaml(sft).size() == 1);
  const YamlNode* root = context.yaml_root(sft);
  REQUIRE(root);
  CHECK(root->find("packing"));
  // A sequence at the top, an empty document, a file without YAML, no file: no mapping.
  CHECK(context.yaml(list).size() == 1);
  CHECK(context.yaml_root(list) == nullptr);
  CHECK(context.yaml_root(empty) == nullptr);
  CHECK(context.yaml(py).empty());
  CHECK(context.yaml_root(py) == nullptr);
  CHECK(context.yaml(kNoFile).empty());
  CHECK(context.yaml(static_cast<FileId>(p.sources.size()) + 3).empty());
}

TEST_CASE("rule context: version targets given up front are read, the others computed once per anchor",
          "[rule-context]") {
  std::atomic<int> computed{0};
  RuleContext::Inputs in;
  in.targets.emplace(3, trl_at("0.19.1"));
  in.targets.emplace(kNoFile, trl_at("1.0.0"));  // the project root's
  in.compute_targets = [&](FileId anchor) {
    ++computed;
    return trl_at("0." + std::to_string(anchor) + ".0");
  };
  const RuleContext context(std::move(in));

  CHECK(context.targets(3).trl.version == "0.19.1");
  CHECK(context.targets(kNoFile).trl.version == "1.0.0");
  CHECK(computed == 0);

  const VersionTargets& five = context.targets(5);
  CHECK(five.trl.version == "0.5.0");
  CHECK(&context.targets(5) == &five);  // kept, not computed again
  CHECK(computed == 1);

  // Many threads asking for the same anchors: each computed once, every answer the same object.
  std::atomic<int> mismatches{0};
  from_threads([&] {
    for (FileId a = 10; a < 20; ++a)
      if (context.targets(a).trl.version != "0." + std::to_string(a) + ".0") ++mismatches;
  });
  CHECK(mismatches == 0);
  CHECK(computed == 11);

  // A run's: those of its script, else of its launch file.
  TrainingRun run;
  run.launch_file = 3;
  CHECK(&context.targets(run) == &context.targets(3));
  run.script = 5;
  CHECK(&context.targets(run) == &context.targets(5));
  CHECK(computed == 11);
}

TEST_CASE("rule context: a run's trainer calls, its script evaluated once when first asked", "[rule-context]") {
  std::atomic<int> evaluated{0};
  ScriptSummary summary;
  summary.constructions = {call_of("SFTConfig"), call_of("SFTTrainer"), call_of("GRPOTrainer")};
  Construction unknown;  // a call of a class the knowledge does not describe
  summary.constructions.push_back(unknown);
  RuleContext::Inputs in;
  in.compute_targets = [](FileId) { return VersionTargets{}; };
  in.evaluate = [&](FileId script) {
    ++evaluated;
    CHECK(script == 2);
    return summary;
  };
  const RuleContext context(std::move(in));

  TrainingRun run;
  run.script = 2;
  CHECK(evaluated == 0);  // nothing evaluated before a rule asks
  auto names = [](const std::vector<Construction>& calls) {
    std::vector<std::string> out;
    out.reserve(calls.size());
    for (const auto& c : calls) out.push_back(c.cls ? c.cls->name : "?");
    return out;
  };
  CHECK(names(context.trainer_calls(run, "")) == std::vector<std::string>{"SFTTrainer", "GRPOTrainer"});
  CHECK(names(context.trainer_calls(run, "SFTTrainer")) == std::vector<std::string>{"SFTTrainer"});
  CHECK(context.trainer_calls(run, "DPOTrainer").empty());
  std::atomic<int> wrong{0};  // Catch2 assertions are not for other threads
  from_threads([&] {
    if (context.trainer_calls(run, "GRPOTrainer").size() != 1) ++wrong;
  });
  CHECK(wrong == 0);
  CHECK(evaluated == 1);
  // First asked by several threads at once: still one evaluation.
  std::atomic<int> raced{0};
  RuleContext::Inputs race_in;
  race_in.evaluate = [&](FileId) {
    ++raced;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return summary;
  };
  const RuleContext race(std::move(race_in));
  from_threads([&] {
    if (race.trainer_calls(run, "SFTTrainer").size() != 1) ++wrong;
  });
  CHECK(wrong == 0);
  CHECK(raced == 1);

  // No script, or its evaluation cut short (in the run or in the summary): no trainer calls, and
  // a run whose own evaluation was cut is not evaluated again.
  TrainingRun launched;  // `trl sft`: no script
  CHECK(context.trainer_calls(launched, "").empty());
  TrainingRun cut;
  cut.script = 4;
  cut.evaluation_cut = span_in(4);
  CHECK(context.trainer_calls(cut, "").empty());
  CHECK(evaluated == 1);

  RuleContext::Inputs short_in;
  short_in.evaluate = [&](FileId) {
    ScriptSummary s = summary;
    s.cut_short = span_in(2);
    return s;
  };
  const RuleContext cut_short(std::move(short_in));
  CHECK(cut_short.trainer_calls(run, "").empty());
}

TEST_CASE("rule context: a class as an installed library defines it, through the pipeline's reader", "[rule-context]") {
  const ClassInfo* sft = Knowledge::get().find("SFTConfig");
  REQUIRE(sft);
  // No reader given: no installed class.
  CHECK(RuleContext(RuleContext::Inputs{}).installed_class(*sft, VersionTargets{}) == nullptr);
  RuleContext::Inputs in;
  const ClassInfo* asked = nullptr;
  std::string target;
  in.installed_class = [&](const ClassInfo& cls, const VersionTargets& t) -> const ClassInfo* {
    asked = &cls;
    target = t.trl.version.value_or("");
    return &cls;
  };
  const RuleContext context(std::move(in));
  CHECK(context.installed_class(*sft, trl_at("9.0.0")) == sft);
  CHECK(asked == sft);
  CHECK(target == "9.0.0");
}

TEST_CASE("rule context: built from a project, the trainer calls of a run's script with their keywords",
          "[rule-context]") {
  Project p = make_project("/proj", {{"launch.sh", "accelerate launch train.py\n"},
                                     {"train.py",
                                      "from trl import SFTConfig, SFTTrainer\n"
                                      "args = SFTConfig(output_dir='out', packing=True)\n"
                                      "trainer = SFTTrainer(model='m', args=args, train_dataset=None)\n"
                                      "trainer.train()\n"}});
  const std::vector<TrainingRun> runs = build_runs(p, Knowledge::get());
  REQUIRE(runs.size() == 1);
  std::vector<FileId> anchors{runs[0].version_anchor()};
  const RuleContext context = make_rule_context(p, anchors);
  const std::vector<Construction> calls = context.trainer_calls(runs[0], "SFTTrainer");
  REQUIRE(calls.size() == 1);
  std::vector<std::string> keywords;
  for (const Member& kw : calls[0].keywords) keywords.push_back(kw.name);
  std::sort(keywords.begin(), keywords.end());
  CHECK(keywords == std::vector<std::string>{"args", "model", "train_dataset"});
  CHECK(context.targets(runs[0]).trl.known());  // the newest release trl-lint knows, without a pin
}
