// Version pins and their resolution to target versions.
#include <catch2/catch.hpp>

#include "analyzer/deps/pin_extractor.hpp"
#include "analyzer/eval/version_targets.hpp"
#include "analyzer/knowledge/knowledge.hpp"

using namespace trl;

TEST_CASE("parse_requirement reads PEP 508 lines of the modelled libraries only") {
  auto p = deps::parse_requirement("trl[vllm]>=0.19.1, <0.20 ; python_version > \"3.9\"");
  REQUIRE(p);
  CHECK(p->package == "trl");
  CHECK(p->spec == ">=0.19.1,<0.20");
  CHECK(deps::parse_requirement("Transformers==4.52.3")->package == "transformers");
  CHECK(!deps::parse_requirement("torch==2.6.0"));
  CHECK(!deps::parse_requirement("trl is great"));  // a string literal in setup.py that is not a requirement
  auto url = deps::parse_requirement("git+https://github.com/huggingface/trl.git@69ad852#egg=trl");
  REQUIRE(url);
  CHECK(url->direct_url);
  auto at = deps::parse_requirement("trl @ git+https://github.com/huggingface/trl.git");
  REQUIRE(at);
  CHECK(at->direct_url);
  CHECK(!deps::parse_requirement("git+https://github.com/huggingface/trl-extras.git"));
  CHECK(deps::parse_requirement("accelerate")->spec.empty());
}

TEST_CASE("versions compare numerically, pre-releases first") {
  CHECK(compare_versions("0.10", "0.9.6") > 0);
  CHECK(compare_versions("1.10.0.dev0", "1.10.0") < 0);
  CHECK(compare_versions("0.19", "0.19.0") == 0);
  CHECK(compare_versions("v1.9.0", "1.9.0") == 0);
}

TEST_CASE("specifiers resolve to the newest known release inside them") {
  const Knowledge& k = Knowledge::get();
  CHECK(resolve_spec("==0.19.1", k, "trl") == "0.19.1");
  CHECK(resolve_spec(">=0.19.1", k, "trl") == "1.9.0");
  CHECK(resolve_spec(">=0.19,<0.20", k, "trl") == "0.19.1");
  CHECK(resolve_spec("~=0.18.0", k, "trl") == "0.18.2");
  CHECK(resolve_spec("==0.16.*", k, "trl") == "0.16.1");
  CHECK(resolve_spec("<0.2", k, "trl") == std::nullopt);
  CHECK(resolve_spec("", k, "accelerate") == "1.14.0");
  CHECK(resolve_spec(">=4.53.3", k, "transformers") == k.library("transformers")->newest);
  CHECK(satisfies("0.19.1", ">=0.19,!=0.19.0"));
  CHECK(!satisfies("0.19.0", ">=0.19,!=0.19.0"));
}

TEST_CASE("target-version option values") {
  CHECK(parse_target_option("trl=0.19.1") == std::make_pair(std::string("trl"), std::string("0.19.1")));
  CHECK(parse_target_option("TRL=0.19.1")->first == "trl");
  CHECK(!parse_target_option("trl=latest"));
  auto pip_style = parse_target_option("transformers==4.52.3");
  REQUIRE(pip_style);
  CHECK(pip_style->second == "4.52.3");
  CHECK(!parse_target_option("torch=2.6"));
  CHECK(!parse_target_option("trl="));
  CHECK(!parse_target_option("trl"));
}

TEST_CASE("the knowledge has renames, accelerate sections and releases") {
  const Knowledge& k = Knowledge::get();
  bool max_seq = false;
  for (const auto& r : k.renames())
    if (r.cls == "SFTConfig" && r.old_name == "max_seq_length")
      max_seq = r.new_name == "max_length" && r.removed == "0.20.0";
  CHECK(max_seq);
  REQUIRE(k.accelerate_section("fsdp_config"));
  CHECK(k.accelerate_section("fsdp_config")->count("fsdp_version"));
  CHECK(k.accelerate_section("accelerate_yaml")->count("mixed_precision"));
  CHECK(k.library("trl")->newest == "1.9.0");
  CHECK(k.library_of("TrainingArguments") == "transformers");
  CHECK(k.library_of("SFTTrainer") == "trl");
}
