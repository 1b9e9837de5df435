// Version pins and their resolution to target versions.
#include <catch2/catch.hpp>

#include "analyzer/deps/pin_extractor.hpp"
#include "analyzer/eval/version_targets.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/project/project.hpp"
#include "analyzer/source/source_file.hpp"

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

TEST_CASE("pyproject.toml pins, next to characters toml++ 3.3.0 cannot classify") {
  // `§` after a line-ending backslash and `é` after a value reach undefined behaviour in toml++
  // 3.3.0 (see analyzer/config/toml_input.hpp); the pins around them are read with their spans.
  SourceFile f;
  f.path = f.abs_path = "pyproject.toml";
  f.kind = FileKind::Toml;
  f.text =
      "[project]\nname = \"caf\xC3\xA9\"\ndescription = \"\"\"\\\n  \xC2\xA7 \xC3\xA9t\xC3\xA9\"\"\"\n"
      "dependencies = [\"trl==0.19.1\", \"accelerate>=1.0\"]\n"
      "[tool.poetry.dependencies]\n\"transformers\" = \"^4.50\"\n";
  f.index_lines();
  FileFacts facts;
  deps::extract_pins(f, facts);
  REQUIRE(facts.pins.size() == 3);
  CHECK(facts.pins[0].package == "trl");
  CHECK(facts.pins[0].spec == "==0.19.1");
  CHECK(f.text.substr(facts.pins[0].span.begin, 11) == "trl==0.19.1");
  CHECK(facts.pins[2].package == "transformers");
  CHECK(facts.pins[2].spec == ">=4.50,<5");
  // A broken file (`é` where a comment or a line end must follow) gives no pins, and no crash.
  f.text = "[project]\ndependencies = [\"trl==0.19.1\"] \xC3\xA9\n";
  f.index_lines();
  FileFacts broken;
  deps::extract_pins(f, broken);
  CHECK(broken.pins.empty());
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

TEST_CASE("requirements files: hash lines, includes, markers and pins that disagree") {
  const Knowledge& k = Knowledge::get();
  auto trl_at = [&](const Project& p) { return version_targets(p, p.sources.find_abs("/repo/train.py"), k).trl; };
  // pip-compile --generate-hashes: the options after the requirement, on its line or on
  // continuation lines, are not part of it; a `# via` comment line after them is skipped.
  Project hashes = make_project("/repo", {{"requirements.txt",
                                           "accelerate==1.10.0 --hash=sha256:11\n"
                                           "trl==0.19.1 \\\n    --hash=sha256:aa \\\n    --hash=sha256:bb\n"
                                           "    # via -r requirements.in\n"},
                                          {"train.py", "import trl\n"}});
  CHECK(trl_at(hashes).describe() == "TRL 0.19.1 (requirements.txt: trl==0.19.1)");
  CHECK(version_targets(hashes, hashes.sources.find_abs("/repo/train.py"), k).accelerate.describe() ==
        "accelerate 1.10.0 (requirements.txt: accelerate==1.10.0)");
  // `-r` and `--constraint=` include files, relative to the including file's folder; a cycle ends.
  Project included = make_project("/repo", {{"requirements.txt", "-r requirements/base.txt\n"},
                                            {"requirements/base.txt", "-r ../requirements.txt\ntrl==0.19.1\n"},
                                            {"train.py", "import trl\n"}});
  CHECK(trl_at(included).describe() == "TRL 0.19.1 (requirements/base.txt: trl==0.19.1)");
  Project constrained = make_project("/repo", {{"requirements.txt", "trl\n--constraint=constraints.txt\n"},
                                               {"constraints.txt", "trl==0.17.0\n"},
                                               {"train.py", "import trl\n"}});
  CHECK(trl_at(constrained).version == "0.17.0");
  // An extra or a marker does not decide beside an unconditional pin; alone, it does.
  Project extra = make_project("/repo", {{"requirements.txt", "trl~=0.19.0\n"},
                                         {"pyproject.toml",
                                          "[project]\nname = \"x\"\ndependencies = []\n"
                                          "[project.optional-dependencies]\nnext = [\"trl==1.0.0\"]\n"},
                                         {"train.py", "import trl\n"}});
  CHECK(trl_at(extra).version == "0.19.1");
  Project marker = make_project(
      "/repo", {{"requirements.txt", "trl==0.12.2; python_version < \"3.9\"\n"}, {"train.py", "import trl\n"}});
  CHECK(trl_at(marker).version == "0.12.2");
  // A marker pin narrows a range beside it (an exported lock file), rather than losing to it.
  Project lock = make_project("/repo", {{"pyproject.toml", "[project]\nname = \"x\"\ndependencies = [\"trl>=0.18\"]\n"},
                                        {"requirements.txt", "trl==0.18.2 ; python_version >= \"3.10\"\n"},
                                        {"train.py", "import trl\n"}});
  CHECK(trl_at(lock).version == "0.18.2");
  // A comment line ending in a backslash does not continue (pip's join_lines).
  Project comment = make_project(
      "/repo", {{"requirements.txt", "# see docs/env.md \\\ntrl==0.18.2\n"}, {"train.py", "import trl\n"}});
  CHECK(trl_at(comment).version == "0.18.2");
  // pip joins a line ending in a backslash with the next before it parses the requirement
  // (req_file.py join_lines): `trl \` + `==0.19.0` is `trl ==0.19.0`; the span covers both lines.
  Project split = make_project(
      "/repo", {{"requirements.txt", "accelerate==1.10.0\ntrl \\\n    ==0.19.0\n"}, {"train.py", "import trl\n"}});
  CHECK(trl_at(split).describe() == "TRL 0.19.0 (requirements.txt: trl ==0.19.0)");
  CHECK(trl_at(split).pin.start.line == 1);
  CHECK(trl_at(split).pin.stop.line == 2);
  Project split_clauses = make_project(
      "/repo",
      {{"requirements.txt", "trl>=0.18,\\\n<0.19 --hash=sha256:aa \\\n  # via x\n"}, {"train.py", "import trl\n"}});
  CHECK(trl_at(split_clauses).version == "0.18.2");
  // A comment after whitespace runs to the end of the joined line, across the continuation.
  Project commented = make_project(
      "/repo", {{"requirements.txt", "trl==0.19.0 # was 0.18 \\\ntrl==1.0.0\n"}, {"train.py", "import trl\n"}});
  CHECK(trl_at(commented).version == "0.19.0");
  // `${VAR}` is expanded by pip at install time (req_file.py expand_env_variables): the version
  // is not knowable, never the newest release as if there were no pin.
  for (const char* req : {"trl==${TRL_VERSION}\n", "trl>=${TRL_MIN},<2\n",
                          "trl == ${TRL_VERSION} ; python_version >= \"3.10\"\n", "trl \\\n==${TRL_VERSION}\n"}) {
    Project env = make_project("/repo", {{"requirements.txt", req}, {"train.py", "import trl\n"}});
    CHECK(!trl_at(env).known());
    CHECK(trl_at(env).why.find("environment variable") != std::string::npos);
  }
  Project env_toml =
      make_project("/repo", {{"pyproject.toml", "[project]\nname = \"x\"\ndependencies = [\"trl==${TRL_VERSION}\"]\n"},
                             {"train.py", "import trl\n"}});
  CHECK(!trl_at(env_toml).known());
  // An include that is not a requirements file of the project may pin anything: unknown.
  for (const char* include :
       {"-r ../outside.txt", "-r ${REQ_DIR}/base.txt", "-r https://example.com/r.txt", "--requirement=base.txt"}) {
    Project unread = make_project("/repo", {{"requirements.txt", std::string(include) + "\n"},
                                            {"base.txt", "trl==0.18.2\n"},
                                            {"train.py", "import trl\n"}});
    CHECK(!trl_at(unread).known());
    CHECK(trl_at(unread).why.find("cannot read") != std::string::npos);
  }
  // Pins no version satisfies together: unknown, and said so.
  Project disagree = make_project(
      "/repo",
      {{"requirements.txt", "trl==0.19.1\n"}, {"requirements-dev.txt", "trl==1.0.0\n"}, {"train.py", "import trl\n"}});
  CHECK(!trl_at(disagree).known());
  CHECK(trl_at(disagree).why.find("disagree") != std::string::npos);
}

TEST_CASE("a VersionTargetsMemo gives the answers of the plain computation, for its own project only") {
  const Knowledge& k = Knowledge::get();
  Project a = make_project("/repo", {{"requirements.txt", "trl==0.19.1\n"},
                                     {"train.py", "import trl\n"},
                                     {"sub/requirements.txt", "trl==0.17.0\n"},
                                     {"sub/run.py", "import trl\n"}});
  Project b = make_project("/other", {{"requirements.txt", "trl==0.16.0\n"}, {"x.py", "import trl\n"}});
  const FileId top = a.sources.find_abs("/repo/train.py"), sub = a.sources.find_abs("/repo/sub/run.py"),
               x = b.sources.find_abs("/other/x.py");
  REQUIRE(top != kNoFile);
  REQUIRE(sub != kNoFile);
  REQUIRE(x != kNoFile);
  const auto plain_top = version_targets(a, top, k).trl.describe();
  const auto plain_sub = version_targets(a, sub, k).trl.describe();
  CHECK(plain_top == "TRL 0.19.1 (requirements.txt: trl==0.19.1)");
  CHECK(plain_sub == "TRL 0.17.0 (sub/requirements.txt: trl==0.17.0)");
  {
    const VersionTargetsMemo memo(a);
    // Asked twice, and in another order: the same answers as without the memo.
    CHECK(version_targets(a, sub, k).trl.describe() == plain_sub);
    CHECK(version_targets(a, top, k).trl.describe() == plain_top);
    CHECK(version_targets(a, sub, k).trl.describe() == plain_sub);
    CHECK(version_targets(a, kNoFile, k).trl.describe() == plain_top);
    // Another project is computed for itself, not served from `a`'s memo.
    CHECK(version_targets(b, x, k).trl.describe() == "TRL 0.16.0 (requirements.txt: trl==0.16.0)");
    {
      const VersionTargetsMemo inner(b);
      CHECK(version_targets(b, x, k).trl.describe() == "TRL 0.16.0 (requirements.txt: trl==0.16.0)");
      CHECK(version_targets(a, top, k).trl.describe() == plain_top);
    }
    CHECK(version_targets(a, top, k).trl.describe() == plain_top);
  }
  {
    // An inner memo for the same project leaves the outer one in charge (the LSP server holds
    // one over all the runs it judges, and each run's judging opens its own): what the outer
    // one learnt is still served, even if the facts changed, which a judging pass never does.
    const VersionTargetsMemo outer(a);
    CHECK(version_targets(a, top, k).trl.describe() == plain_top);
    auto& pins = a.facts[a.sources.find_abs("/repo/requirements.txt")].pins;
    const auto saved = pins;
    pins.clear();
    {
      const VersionTargetsMemo inner(a);
      CHECK(version_targets(a, top, k).trl.describe() == plain_top);
    }
    pins = saved;
  }
  // Without a memo the project's pins are read again: a changed pin shows.
  a.facts[a.sources.find_abs("/repo/requirements.txt")].pins.clear();
  CHECK(version_targets(a, top, k).trl.describe() != plain_top);
}
