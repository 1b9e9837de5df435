// Project configuration: file formats, unknown keys, extend, closest-config lookup, command-line
// overrides, per-file ignores, exclude, severities, target versions and declared runs.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "analyzer/config/apply.hpp"
#include "analyzer/config/config_file.hpp"
#include "analyzer/config/configuration.hpp"
#include "analyzer/config/toml_input.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/pipeline/judge.hpp"
#include "analyzer/source/source_file.hpp"

using namespace trl;
namespace fs = std::filesystem;

namespace {

struct ConfigDir {
  fs::path path;
  ConfigDir() {
    static int counter = 0;
    path =
        fs::temp_directory_path() / ("trl-lint-config-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(path);
    fs::create_directories(path / ".git");  // a repository root: lookups stop here
  }
  ~ConfigDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string& rel, const std::string& text) const {
    fs::create_directories((path / rel).parent_path());
    std::ofstream(path / rel, std::ios::binary) << text;
    return (path / rel).string();
  }
  std::string abs(const std::string& rel) const { return (path / rel).lexically_normal().string(); }
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// The TRL101 project of TRL101/yaml_packing_accel_yaml_cp in tests/cases/TRL101.md, reduced.
void write_cp_project(const ConfigDir& d, const std::string& prefix = "") {
  d.write(prefix + "recipes/accel_cp2.yaml",
          "distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\nnum_processes: 2\nparallelism_config:\n"
          "  parallelism_config_cp_size: 2\n");
  d.write(prefix + "recipes/sft.yaml", "model_name_or_path: Qwen/Qwen2.5-0.5B\nmax_length: 16384\npacking: true\n");
  d.write(prefix + "scripts/sft.py",
          "from trl import ModelConfig, ScriptArguments, SFTConfig, SFTTrainer, TrlParser\n\n"
          "if __name__ == \"__main__\":\n"
          "    parser = TrlParser((ScriptArguments, SFTConfig, ModelConfig))\n"
          "    script_args, training_args, model_args = parser.parse_args_and_config()\n"
          "    SFTTrainer(model=model_args.model_name_or_path, args=training_args).train()\n");
}

void write_cp_launch(const ConfigDir& d, const std::string& prefix = "") {
  d.write(prefix + "launch.sh",
          "accelerate launch --config_file recipes/accel_cp2.yaml scripts/sft.py --config recipes/sft.yaml\n");
}

std::vector<Diagnostic> lint(const std::string& root, Configuration& config,
                             std::vector<TrainingRun>* runs_out = nullptr) {
  LoadOptions o;
  o.paths = {root};
  o.threads = 1;
  o.excluded = exclusion(config);
  Project project = load_project(o);
  auto declared = declared_runs(project, config);
  auto runs = build_runs(project, Knowledge::get(), declared);
  apply_target_versions(runs, project, config);
  auto diags = collect_diagnostics(project, runs, Selection{{}, disabled_everywhere(config)});
  apply_settings(diags, project, config);
  // These tests are about how configuration shapes TRL101 findings; the fixtures' other true
  // findings (TRL201 packing without FlashAttention, ...) are not their subject.
  std::erase_if(diags, [](const Diagnostic& d) { return d.code != "TRL101"; });
  for (auto& d : diags) d.label = project.sources.get(d.span.file).path;  // keep the path for the test
  if (runs_out) *runs_out = runs;
  return diags;
}

std::string relative_path_of(const Diagnostic& d, const ConfigDir& dir) {
  return fs::absolute(d.label).lexically_normal().lexically_relative(dir.path).generic_string();
}

}  // namespace

TEST_CASE("a YAML configuration reads every key", "[config]") {
  ConfigDir d;
  const auto file = d.write(".trl-lint.yaml",
                            "select: [TRL1, TRL9]\n"
                            "extend-select: TRL101\n"
                            "ignore: ['TRL903, TRL904']\n"
                            "severity: {TRL101: warning, TRL9: info}\n"
                            "per-file-ignores:\n  'legacy/**': [TRL101]\n"
                            "exclude: [experiments, 'data/*.yaml']\n"
                            "target-versions: {trl: 0.19.1, transformers: '4.56.0', accelerate: \"1.10\"}\n"
                            "runs:\n"
                            "  - name: long-context\n    script: scripts/sft.py\n    config: recipes/sft.yaml\n"
                            "    accelerate-config: recipes/accel.yaml\n    args: --packing true\n"
                            "    env: {WANDB_MODE: offline, NCCL_DEBUG: 1}\n");
  Settings s = load_config_file(file);
  REQUIRE(s.files == std::vector<std::string>{file});
  CHECK(s.enabled("TRL101"));
  CHECK(s.enabled("TRL901"));
  CHECK_FALSE(s.enabled("TRL903"));
  CHECK_FALSE(s.enabled("TRL904"));
  CHECK(s.severity_of("TRL101", Severity::Error) == Severity::Warning);
  CHECK(s.severity_of("TRL901", Severity::Warning) == Severity::Info);
  CHECK(s.ignored_in("TRL101", d.abs("legacy/a/b.yaml")));
  CHECK_FALSE(s.ignored_in("TRL101", d.abs("recipes/b.yaml")));
  CHECK(s.excluded(d.abs("experiments")));
  CHECK(s.excluded(d.abs("sub/experiments/x.py")));  // a bare name matches at any depth
  CHECK(s.excluded(d.abs("data/a.yaml")));
  CHECK_FALSE(s.excluded(d.abs("data/nested/a.yaml")));  // `*` does not cross folders
  CHECK_FALSE(s.excluded(d.abs("other/data/a.yaml")));   // a glob with a slash is anchored
  CHECK(s.target_versions.at("trl").value == "0.19.1");
  CHECK(s.target_versions.at("accelerate").value == "1.10");  // kept as written, not read as 1.1
  REQUIRE(s.runs.size() == 1);
  const auto& r = s.runs[0];
  CHECK(r.name == "long-context");
  CHECK(r.script->value == "scripts/sft.py");
  CHECK(r.script->where.start.line == 10);
  CHECK(r.script->where.start.column == 12);
  CHECK(r.accelerate_config->value == "recipes/accel.yaml");
  REQUIRE(r.args.size() == 2);
  CHECK(r.args[1].value == "true");
  REQUIRE(r.env.size() == 2);
  CHECK(r.env[1].second.value == "1");
}

TEST_CASE("an empty configuration file means the defaults", "[config]") {
  ConfigDir d;
  Settings s = load_config_file(d.write(".trl-lint.yaml", "# nothing yet\n"));
  CHECK(s.enabled("TRL101"));
  CHECK(s.runs.empty());
}

TEST_CASE("unknown keys are errors with a position and a suggestion", "[config]") {
  ConfigDir d;
  SECTION("top level") {
    auto f = d.write(".trl-lint.yaml", "select: [TRL1]\nper-file-ignore:\n  a: [TRL101]\n");
    auto e = error_of([&] { load_config_file(f); });
    CHECK_THAT(e, Catch::Contains(".trl-lint.yaml:2:1: unknown configuration key `per-file-ignore`; did you mean "
                                  "`per-file-ignores`?"));
  }
  SECTION("a key of a run") {
    auto f = d.write(".trl-lint.yaml", "runs:\n  - script: a.py\n    acelerate-config: b.yaml\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }),
               Catch::Contains(":3:5: unknown key in a run `acelerate-config`; did you mean `accelerate-config`?"));
  }
  SECTION("a library in target-versions") {
    auto f = d.write(".trl-lint.yaml", "target-versions:\n  transfomers: '4.56'\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }), Catch::Contains("did you mean `transformers`?"));
  }
  SECTION("a rule code") {
    auto f = d.write(".trl-lint.yaml", "ignore: [TRL1O1]\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }),
               Catch::Contains(":1:10: unknown rule selector `TRL1O1`; did you mean `TRL101`?"));
  }
  SECTION("a severity") {
    auto f = d.write(".trl-lint.yaml", "severity:\n  TRL101: warn\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }),
               Catch::Contains(":2:11: unknown severity `warn`; did you mean `warning`?"));
  }
  SECTION("far from every key: no suggestion") {
    auto f = d.write(".trl-lint.yaml", "zzzzzzzz: 1\n");
    auto e = error_of([&] { load_config_file(f); });
    CHECK_THAT(e, Catch::Contains("unknown configuration key `zzzzzzzz` (expected one of:"));
    CHECK_THAT(e, !Catch::Contains("did you mean"));
  }
  SECTION("a run without a script") {
    auto f = d.write(".trl-lint.yaml", "runs:\n  - name: x\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }), Catch::Contains(":2:5: run 1 has no `script`"));
  }
  SECTION("not a mapping") {
    auto f = d.write(".trl-lint.yaml", "- select\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }), Catch::Contains("must be a mapping"));
  }
  SECTION("invalid YAML") {
    auto f = d.write(".trl-lint.yaml", "select: [TRL1\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }), Catch::Contains("invalid YAML"));
  }
  SECTION("binary content") {
    auto f = d.write(".trl-lint.yaml", std::string("select: [TRL1]\0\xff", 16));
    CHECK_THAT(error_of([&] { load_config_file(f); }), Catch::Contains("must be UTF-8 text"));
  }
  SECTION("a recursive alias") {
    auto f = d.write(".trl-lint.yaml", "runs: &a [*a]\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }), Catch::Contains("nested too deeply"));
  }
  SECTION("a version that is not one") {
    auto f = d.write(".trl-lint.yaml", "target-versions: {trl: latest}\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }), Catch::Contains("`latest` is not a version"));
  }
}

TEST_CASE("a YAML configuration with a key twice, or aliases that expand without end, is refused", "[config]") {
  ConfigDir d;
  SECTION("a duplicate key: an error at the second one, naming the first (the last one used to win)") {
    auto f = d.write(".trl-lint.yaml", "ignore: [TRL101]\nselect: [ALL]\nignore: [TRL201]\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }),
               Catch::Contains(".trl-lint.yaml:3:1: duplicate key `ignore` (first at line 1)"));
  }
  SECTION("a duplicate key in a nested mapping") {
    auto f = d.write(".trl-lint.yaml", "severity:\n  TRL101: info\n  TRL101: error\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }), Catch::Contains(":3:3: duplicate key `TRL101`"));
  }
  SECTION("an alias bomb: refused at once (10^10 values built took gigabytes)") {
    std::string bomb = "x: &a [\"TRL101\", \"TRL101\", \"TRL101\", \"TRL101\", \"TRL101\", \"TRL101\"]\n";
    char prev = 'a';
    for (char c = 'b'; c <= 'k'; ++c) {
      bomb += std::string(1, c) + ": &" + c + " [";
      for (int k = 0; k < 10; ++k) bomb += std::string(k ? ", " : "") + "*" + prev;
      bomb += "]\n";
      prev = c;
    }
    bomb += "ignore: *k\n";
    auto f = d.write(".trl-lint.yaml", bomb);
    CHECK_THAT(error_of([&] { load_config_file(f); }), Catch::Contains("configuration too large"));
  }
  SECTION("a few aliases are fine") {
    auto f = d.write(".trl-lint.yaml", "ignore: &ours [TRL101]\nextend-select: *ours\n");
    Settings s = load_config_file(f);
    CHECK_FALSE(s.enabled("TRL101"));
  }
}

TEST_CASE("TOML configurations of our own: .trl-lint.toml, trl-lint.toml, --config X.toml", "[config]") {
  ConfigDir d;
  SECTION("keys at the top level, as in ruff.toml") {
    for (const char* name : {".trl-lint.toml", "trl-lint.toml", "ci.toml"}) {
      INFO(name);
      auto f = d.write(name, "ignore = [\"TRL101\"]\n[severity]\nTRL901 = \"error\"\n");
      CHECK(is_config_file(f) == (std::string(name) != "ci.toml"));  // only the two names are found
      Settings s = load_config_file(f);
      CHECK_FALSE(s.enabled("TRL101"));
      CHECK(s.severity_of("TRL901", Severity::Warning) == Severity::Error);
    }
  }
  SECTION("a [tool.trl-lint] table in another TOML file given to --config") {
    auto f = d.write("ci.toml", "[tool.trl-lint]\nignore = [\"TRL201\"]\n");
    Settings s = load_config_file(f);
    CHECK_FALSE(s.enabled("TRL201"));
  }
  SECTION("errors keep their positions") {
    auto f = d.write("trl-lint.toml", "ignroe = [\"TRL101\"]\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }), Catch::Contains("trl-lint.toml:1:1: unknown configuration key"));
  }
  SECTION("in one folder, .trl-lint.yaml comes first, then .trl-lint.toml, trl-lint.toml, pyproject.toml") {
    d.write("pyproject.toml", "[tool.trl-lint]\nignore = [\"TRL103\"]\n");
    d.write("trl-lint.toml", "ignore = [\"TRL102\"]\n");
    Configuration c1(ConfigOptions{});
    CHECK_FALSE(c1.for_path((d.path / "x.py").string()).enabled("TRL102"));
    d.write(".trl-lint.toml", "ignore = [\"TRL104\"]\n");
    Configuration c2(ConfigOptions{});
    CHECK_FALSE(c2.for_path((d.path / "x.py").string()).enabled("TRL104"));
    CHECK(c2.for_path((d.path / "x.py").string()).enabled("TRL102"));
  }
}

TEST_CASE("[tool.trl-lint] in pyproject.toml", "[config]") {
  ConfigDir d;
  SECTION("is read with positions") {
    auto f = d.write("pyproject.toml",
                     "[project]\nname = \"x\"\n\n[tool.trl-lint]\nignore = [\"TRL101\"]\n"
                     "severity = { TRL901 = \"error\" }\n[tool.trl-lint.target-versions]\ntrl = \"0.19.1\"\n"
                     "[[tool.trl-lint.runs]]\nscript = \"train.py\"\nargs = [\"--packing\", \"true\"]\n");
    CHECK(is_config_file(f));
    Settings s = load_config_file(f);
    CHECK_FALSE(s.enabled("TRL101"));
    CHECK(s.severity_of("TRL901", Severity::Warning) == Severity::Error);
    CHECK(s.target_versions.at("trl").value == "0.19.1");
    REQUIRE(s.runs.size() == 1);
    CHECK(s.runs[0].script->where.start.line == 9);
    CHECK(s.runs[0].args.size() == 2);
  }
  SECTION("a pyproject without the table is not a configuration") {
    auto f = d.write("pyproject.toml", "[project]\nname = \"trl-lint-user\"\n[tool.ruff]\nline-length = 100\n");
    CHECK_FALSE(is_config_file(f));
  }
  SECTION("unknown keys, with the TOML position") {
    auto f = d.write("pyproject.toml", "[tool.trl-lint]\nextend-selct = [\"TRL1\"]\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }),
               Catch::Contains("pyproject.toml:2:1: unknown configuration key `extend-selct`; did you mean "
                               "`extend-select`?"));
  }
  SECTION("an unquoted version is a number, not a version") {
    auto f = d.write("pyproject.toml", "[tool.trl-lint.target-versions]\ntrl = 0.19\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }), Catch::Contains(":2:7: `target-versions.trl` must be a string"));
  }
  SECTION("invalid TOML") {
    auto f = d.write("pyproject.toml", "[tool.trl-lint]\nselect = [\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }), Catch::Contains("invalid TOML"));
  }
}

TEST_CASE("TOML with the characters toml++ 3.3.0 cannot classify as whitespace or not", "[config][toml]") {
  // toml++ 3.3.0's whitespace test reaches __builtin_unreachable for these characters (tomlplusplus
  // #190, #295); the sanitizer build aborts if one ever reaches it.
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges = {
      {0x00A1, 0x0499}, {0x2C5E, 0x2FFF}, {0x3001, 0x3057}, {0xFB26, 0xFEFE}};
  auto utf8 = [](std::uint32_t c) {
    std::string s;
    append_utf8(s, c);
    return s;
  };
  SECTION("each one where whitespace may stand: an error, or the exact text back") {
    for (const auto& [first, last] : ranges)
      for (std::uint32_t c = first; c <= last; ++c) {
        const std::string ch = utf8(c);
        INFO("U+" << std::hex << c);
        // After a value: toml++ tests it for whitespace, then reports it.
        try {
          TomlDocument doc("a = 1" + ch + "\n", "p.toml");
          FAIL("parsed");
        } catch (const toml::parse_error& e) {
          CHECK(std::string(e.description()).find("saw '" + ch + "'") != std::string::npos);
          CHECK(e.source().begin.line == 1);
          CHECK(e.source().begin.column == 6);  // characters, as without the workaround
        }
        // After a line-ending backslash in a multi-line string (valid TOML, #190), and in a key.
        TomlDocument doc("s = \"\"\"\\\n" + ch + "x\"\"\"\n\"k" + ch + "\" = \"" + ch + "\"\n", "p.toml");
        CHECK(doc.text(*doc.table()["s"].value<std::string>()) == ch + "x");
        REQUIRE(doc.table().size() == 2);
        for (const auto& [key, node] : doc.table())
          if (key.str() != "s") {
            CHECK(doc.text(key.str()) == "k" + ch);
            CHECK(doc.text(*node.value<std::string>()) == ch);
          }
      }
  }
  SECTION("a text without them is read as it is, plane-15 characters included") {
    TomlDocument doc("a = \"" + utf8(0xF00E9) + "\"\n", "p.toml");
    CHECK(doc.text(*doc.table()["a"].value<std::string>()) == utf8(0xF00E9));
  }
  SECTION("plane-15 characters of the shifted ranges next to characters to shift are refused") {
    CHECK_THROWS_WITH(TomlDocument("a = \"" + utf8(0xF00E9) + "\"\nb = \"\xC3\xA9\"\n", "p.toml"),
                      Catch::Contains("plane 15"));
    CHECK_THROWS_WITH(TomlDocument("a = \"\\U000F00E9\"\nb = \"\xC3\xA9\"\n", "p.toml"), Catch::Contains("plane 15"));
    CHECK_THROWS_WITH(TomlDocument("a = \"\\U000f00e9\"\nb = \"\xC3\xA9\"\n", "p.toml"), Catch::Contains("plane 15"));
    // Outside the shifted ranges, plane 15 is no clash.
    TomlDocument doc("a = \"" + utf8(0xF0041) + "\"\nb = \"\xC3\xA9\"\n", "p.toml");
    CHECK(doc.text(*doc.table()["a"].value<std::string>()) == utf8(0xF0041));
    CHECK(doc.text(*doc.table()["b"].value<std::string>()) == "\xC3\xA9");
  }
  SECTION("error descriptions: escaped characters and cut descriptions are given back as the file has them") {
    // After `\r` toml++ quotes the next character escaped: `\u00A7`, not the shifted `\U000F00A7`.
    try {
      TomlDocument doc("x = 1\r\xC2\xA7\n", "p.toml");
      FAIL("parsed");
    } catch (const toml::parse_error& e) {
      CHECK(std::string(e.description()).find("'\\u00A7'") != std::string::npos);
      CHECK(std::string(e.description()).find("\\U000F") == std::string::npos);
    }
    // A table defined twice, its quoted name 300 `é`: toml++ cuts its description at 511 bytes,
    // which may fall inside a shifted character; no half character is left at the end.
    std::string name = "x";  // the cut then falls inside a 4-byte shifted character
    for (int i = 0; i < 300; ++i) name += "\xC3\xA9";
    try {
      TomlDocument doc("[\"" + name + "\"]\n[\"" + name + "\"]\n", "p.toml");
      FAIL("parsed");
    } catch (const toml::parse_error& e) {
      const std::string d(e.description());
      CHECK(is_valid_utf8(d));
      CHECK(d.find("\xC3\xA9\xC3\xA9") != std::string::npos);
      CHECK(d.find("\xF3\xB0") == std::string::npos);  // no plane-15 character left
    }
  }
  SECTION("the refusal is located at the first plane-15 character or \\U000F") {
    try {
      TomlDocument doc("a = 1\nb = \"" + utf8(0xF00E9) + "\"\nc = \"\xC3\xA9\"\n", "p.toml");
      FAIL("parsed");
    } catch (const toml::parse_error& e) {
      CHECK(e.source().begin.line == 2);
      CHECK(e.source().begin.column == 6);
    }
    try {
      TomlDocument doc("c = \"\xC3\xA9\"\n# \\U000F00E9\n", "p.toml");
      FAIL("parsed");
    } catch (const toml::parse_error& e) {
      CHECK(e.source().begin.line == 2);
      CHECK(e.source().begin.column == 3);
    }
  }
  SECTION("broken UTF-8 next to them is toml++'s error, not a crash") {
    CHECK_THROWS_AS(TomlDocument("a = \"\xC3\xA9\xC3\"\n", "p.toml"), toml::parse_error);
    CHECK_THROWS_AS(TomlDocument("\xC3\xA9 = \xE0\x80\x80\n", "p.toml"), toml::parse_error);
  }
  SECTION("in [tool.trl-lint]: values read exactly, errors located and quoted") {
    ConfigDir d;
    auto f = d.write("pyproject.toml",
                     "[tool.trl-lint]\n[[tool.trl-lint.runs]]\nscript = \"\"\"\\\n  \xC2\xA7train.py\"\"\"\n");
    Settings s = load_config_file(f);
    REQUIRE(s.runs.size() == 1);
    CHECK(s.runs[0].script->value == "\xC2\xA7train.py");
    auto g = d.write("pyproject.toml", "[tool.trl-lint]\nselect = [\"TRL1\"] \xC3\xA9\n");
    CHECK_THAT(error_of([&] { load_config_file(g); }),
               Catch::Contains("pyproject.toml:2:19: invalid TOML") && Catch::Contains("'\xC3\xA9'"));
  }
}

TEST_CASE("extend inherits, overrides key by key and detects cycles", "[config]") {
  ConfigDir d;
  SECTION("inherit and override") {
    d.write("base/.trl-lint.yaml",
            "ignore: [TRL9]\nseverity: {TRL101: info, TRL901: error}\nexclude: [old]\n"
            "per-file-ignores: {'legacy/*': [TRL101]}\ntarget-versions: {trl: '0.19.1', accelerate: '1.10.0'}\n");
    auto child = d.write("proj/.trl-lint.yaml",
                         "extend: ../base/.trl-lint.yaml\nextend-select: [TRL901]\nseverity: {TRL101: warning}\n"
                         "target-versions: {trl: '1.0.0'}\n");
    Settings s = load_config_file(child);
    CHECK(s.files.size() == 2);
    CHECK(s.enabled("TRL901"));        // the child's extend-select comes after the base's ignore
    CHECK_FALSE(s.enabled("TRL902"));  // still ignored by the base
    CHECK(s.severity_of("TRL101", Severity::Error) == Severity::Warning);
    CHECK(s.severity_of("TRL901", Severity::Warning) == Severity::Error);
    CHECK(s.target_versions.at("trl").value == "1.0.0");
    CHECK(s.target_versions.at("accelerate").value == "1.10.0");
    // Globs stay relative to the file that wrote them.
    CHECK(s.excluded(d.abs("base/old")));
    CHECK_FALSE(s.excluded(d.abs("proj/sub/x.py")));
    CHECK(s.ignored_in("TRL101", d.abs("base/legacy/a.yaml")));
  }
  SECTION("a cycle") {
    d.write("a/.trl-lint.yaml", "extend: ../b/.trl-lint.yaml\n");
    d.write("b/.trl-lint.yaml", "select: [TRL1]\nextend: ../a/.trl-lint.yaml\n");
    auto e = error_of([&] { load_config_file(d.abs("a/.trl-lint.yaml")); });
    CHECK_THAT(e, Catch::Contains("b/.trl-lint.yaml:2:9: `extend` cycle:"));
  }
  SECTION("extending itself") {
    auto f = d.write(".trl-lint.yaml", "extend: .trl-lint.yaml\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }), Catch::Contains("`extend` cycle"));
  }
  SECTION("a missing file") {
    auto f = d.write(".trl-lint.yaml", "extend: nowhere.yaml\n");
    CHECK_THAT(error_of([&] { load_config_file(f); }), Catch::Contains(":1:9: `extend`: no such file"));
  }
}

TEST_CASE("the closest configuration wins, not above the repository root", "[config]") {
  ConfigDir outer;
  outer.write(".trl-lint.yaml", "ignore: [TRL101]\n");  // above the repository: never read
  fs::path repo = outer.path / "repo";
  fs::create_directories(repo / ".git");
  std::ofstream(repo / ".trl-lint.yaml") << "ignore: [TRL901]\n";
  fs::create_directories(repo / "sub" / "deeper");
  std::ofstream(repo / "sub" / "pyproject.toml") << "[tool.trl-lint]\nignore = [\"TRL902\"]\n";
  fs::create_directories(repo / "plain");
  Configuration config(ConfigOptions{});
  const Settings& root = config.for_path((repo / "plain" / "x.py").string());
  CHECK_FALSE(root.enabled("TRL901"));
  CHECK(root.enabled("TRL101"));
  const Settings& sub = config.for_path((repo / "sub" / "deeper" / "x.py").string());
  CHECK(sub.enabled("TRL901"));  // no implicit merge with the parent configuration
  CHECK_FALSE(sub.enabled("TRL902"));
  // The project of a path: the nearest folder marking one (`.git`, a configuration, a
  // pyproject.toml, setup.py or setup.cfg), also inside a repository.
  CHECK(project_root_of((repo / "sub" / "deeper" / "x.py").string()) == (repo / "sub").string());
  CHECK(project_root_of((repo / "sub" / "deeper").string()) == (repo / "sub").string());
  CHECK(project_root_of((repo / "plain" / "x.py").string()) == repo.string());
  CHECK(project_root_of((repo / "plain").string() + "/") == repo.string());
  fs::create_directories(repo / "pkg" / "src");
  std::ofstream(repo / "pkg" / "setup.cfg") << "[metadata]\nname = pkg\n";
  CHECK(project_root_of((repo / "pkg" / "src" / "x.py").string()) == (repo / "pkg").string());
  fs::create_directories(repo / "lib");
  std::ofstream(repo / "lib" / "setup.py") << "";
  CHECK(project_root_of((repo / "lib").string()) == (repo / "lib").string());
  fs::create_directories(repo / "wt");
  std::ofstream(repo / "wt" / ".git") << "gitdir: /elsewhere\n";  // a worktree's link file
  CHECK(project_root_of((repo / "wt" / "x.py").string()) == (repo / "wt").string());
  // Outside any project, and outside the working folder: the nearest folder with a
  // configuration, else the path's own folder.
  ConfigDir loose;
  fs::remove_all(loose.path / ".git");  // (a test folder sits in /tmp, in no repository)
  fs::create_directories(loose.path / "a" / "b");
  std::ofstream(loose.path / "a" / ".trl-lint.yaml") << "ignore: [TRL901]\n";
  CHECK(project_root_of((loose.path / "a" / "b" / "x.py").string()) == (loose.path / "a").string());
  fs::create_directories(loose.path / "c");
  CHECK(project_root_of((loose.path / "c" / "x.py").string()) == (loose.path / "c").string());

  SECTION("for_file gives what for_path gives, without asking whether the path is a folder") {
    fs::create_directories(repo / ".hidden");
    const std::vector<fs::path> files = {repo / "plain" / "x.py", repo / "sub" / "deeper" / "x.py",
                                         repo / "sub" / "x.yaml", repo / ".hidden" / "x.yaml",
                                         repo / "sub" / "deeper" / ".." / "y.py"};
    for (const auto& f : files) {
      INFO(f.string());
      CHECK(&config.for_file(f.string()) == &config.for_path(f.string()));
    }
    CHECK_FALSE(config.for_file((repo / "sub" / "deeper" / ".." / "y.py").string()).enabled("TRL902"));
    // A file right inside the folder of a configuration takes that one, not its parent's.
    CHECK_FALSE(config.for_file((repo / "sub" / "x.yaml").string()).enabled("TRL902"));
    CHECK(config.for_file((repo / "sub" / "x.yaml").string()).enabled("TRL901"));
    CHECK_FALSE(config.for_file((repo / "plain" / "x.py").string()).enabled("TRL901"));
    CHECK(config.for_file((repo / "plain" / "x.py").string()).enabled("TRL902"));
    for (const auto& d : {repo / "sub", repo / "sub" / "deeper", repo / ".hidden", repo / "sub" / "deeper" / "..", repo,
                          repo / "sub" / ""}) {
      INFO(d.string());
      CHECK(&config.for_folder(d.string()) == &config.for_path(d.string()));
    }
  }
  SECTION("--isolated ignores every file") {
    ConfigOptions o;
    o.isolated = true;
    Configuration isolated(o);
    CHECK(isolated.for_path((repo / "plain" / "x.py").string()).enabled("TRL901"));
  }
  SECTION("--config applies one file everywhere") {
    ConfigOptions o;
    o.config_file = (repo / "sub" / "pyproject.toml").string();
    Configuration fixed(o);
    CHECK_FALSE(fixed.for_path((repo / "plain" / "x.py").string()).enabled("TRL902"));
    CHECK(fixed.for_path((repo / "plain" / "x.py").string()).enabled("TRL901"));
  }
  SECTION("the command line overrides the files") {
    ConfigOptions o;
    o.command_line.extend_select = {"TRL901"};
    o.command_line.ignore = {"TRL101"};
    Configuration cli(o);
    const Settings& s = cli.for_path((repo / "plain" / "x.py").string());
    CHECK(s.enabled("TRL901"));
    CHECK_FALSE(s.enabled("TRL101"));
  }
  SECTION("an unknown command-line selector is an error") {
    ConfigOptions o;
    o.command_line.select = std::vector<std::string>{"TRL77"};
    CHECK_THAT(error_of([&] { Configuration c(o); }), Catch::Contains("unknown rule selector `TRL77`"));
  }
}

TEST_CASE("a folder's listing answers the configuration lookup for that folder", "[config]") {
  ConfigDir outer;
  fs::remove_all(outer.path / ".git");
  outer.write(".trl-lint.yaml", "ignore: [TRL101]\n");
  const fs::path repo = outer.path / "repo";
  fs::create_directories(repo / ".git");
  outer.write("repo/sub/.trl-lint.yaml", "ignore: [TRL901]\n");
  const std::string sub = (repo / "sub").string();
  SECTION("without a note the disk is asked") {
    Configuration c(ConfigOptions{});
    CHECK(c.config_file_for_dir(sub) == (repo / "sub" / ".trl-lint.yaml").string());
    CHECK_FALSE(c.config_file_for_dir(repo.string()));  // the repository root: not above it
  }
  SECTION("the names a listing holds are the only ones asked about") {
    Configuration c(ConfigOptions{});
    c.note_folder(sub, {{"x.py"}, {"deeper"}});  // a listing without the file: the note is believed
    c.note_folder(repo.string(), {{"sub"}, {".git"}});
    CHECK_FALSE(c.config_file_for_dir(sub));
    Configuration d(ConfigOptions{});
    d.note_folder(sub, {{".trl-lint.yaml"}});
    CHECK(d.config_file_for_dir(sub) == (repo / "sub" / ".trl-lint.yaml").string());
    // A listed name is still checked: a folder named like a configuration file is none.
    fs::create_directories(repo / "dir" / "trl-lint.toml");
    d.note_folder((repo / "dir").string(), {{"trl-lint.toml"}});
    CHECK_FALSE(d.config_file_for_dir((repo / "dir").string()));
  }
  SECTION("`.git` in the listing ends the walk up; its absence goes on up") {
    Configuration stops(ConfigOptions{});
    stops.note_folder(repo.string(), {{".git"}, {"sub"}});
    CHECK_FALSE(stops.config_file_for_dir(repo.string()));
    Configuration goes_on(ConfigOptions{});
    goes_on.note_folder(repo.string(), {{"sub"}});  // as if the listing held no `.git`
    CHECK(goes_on.config_file_for_dir(repo.string()) == (outer.path / ".trl-lint.yaml").string());
  }
  SECTION("a folder looked up before its note keeps its answer") {
    Configuration c(ConfigOptions{});
    CHECK(c.config_file_for_dir(sub));
    c.note_folder(sub, {});
    CHECK(c.config_file_for_dir(sub) == (repo / "sub" / ".trl-lint.yaml").string());
  }
}

TEST_CASE("a `.git` link in a listing is asked about by path", "[config]") {
  ConfigDir d;  // a repository, with its configuration at the top
  d.write(".trl-lint.yaml", "ignore: [TRL101]\n");
  d.write("dangling/x.py", "");
  fs::create_symlink(d.path / "nowhere", d.path / "dangling" / ".git");  // no repository
  d.write("loop/x.py", "");
  fs::create_symlink(".git", d.path / "loop" / ".git");  // a link to itself: none either
  d.write("linked/x.py", "");
  fs::create_directory_symlink(d.path / ".git", d.path / "linked" / ".git");  // a repository
  d.write("worktree/x.py", "");
  d.write("worktree/.git", "gitdir: /elsewhere\n");  // a worktree's `.git` file: a repository
  Configuration config(ConfigOptions{});
  (void)discover({d.path.string()}, exclusion(config), 1, folder_notes(config));
  const std::string top = d.abs(".trl-lint.yaml");
  CHECK(config.config_file_for_dir(d.abs("dangling")) == top);
  CHECK(config.config_file_for_dir(d.abs("loop")) == top);
  CHECK_FALSE(config.config_file_for_dir(d.abs("linked")));
  CHECK_FALSE(config.config_file_for_dir(d.abs("worktree")));
}

TEST_CASE("discovery's listings give the configuration lookup the same answers", "[config]") {
  ConfigDir d;
  write_cp_project(d);
  write_cp_launch(d);
  write_cp_project(d, "nested/");
  write_cp_launch(d, "nested/");
  d.write("nested/.trl-lint.yaml", "ignore: [TRL101]\n");
  write_cp_project(d, "toml/");
  write_cp_launch(d, "toml/");
  d.write("toml/pyproject.toml", "[project]\nname = \"x\"\n\n[tool.trl-lint]\nexclude = [\"scripts/\"]\n");
  d.write("plain/pyproject.toml", "[project]\nname = \"not ours\"\n");
  write_cp_project(d, "plain/");
  write_cp_launch(d, "plain/");
  auto codes = [&](bool with_listings) {
    Configuration config(ConfigOptions{});
    LoadOptions o;
    o.paths = {d.path.string()};
    o.threads = 2;
    o.excluded = exclusion(config);
    if (with_listings) o.listed = folder_notes(config);
    Project project = load_project(o);
    auto runs = build_runs(project, Knowledge::get(), declared_runs(project, config));
    auto diags = collect_diagnostics(project, runs, Selection{{}, disabled_everywhere(config)});
    apply_settings(diags, project, config);
    std::vector<std::string> out;
    out.reserve(diags.size());
    for (const auto& x : diags)
      out.push_back(x.code + " " + project.sources.get(x.span.file).path + ":" + std::to_string(x.span.start.line));
    std::sort(out.begin(), out.end());
    return out;
  };
  const auto without = codes(false);
  CHECK(std::any_of(without.begin(), without.end(), [](const std::string& c) { return c.rfind("TRL101 ", 0) == 0; }));
  CHECK(codes(true) == without);
}

TEST_CASE("selectors: prefixes, codes, names, ALL; the most specific severity wins", "[config]") {
  CHECK(selector_matches("ALL", "TRL101"));
  CHECK(selector_matches("TRL1", "TRL101"));
  CHECK(selector_matches("packing-with-context-parallelism", "TRL101"));
  CHECK_FALSE(selector_matches("TRL2", "TRL101"));
  Settings s;
  s.severity = {{"ALL", Severity::Info}, {"TRL1", Severity::Warning}, {"TRL101", Severity::Error}};
  CHECK(s.severity_of("TRL101", Severity::Warning) == Severity::Error);
  CHECK(s.severity_of("TRL901", Severity::Warning) == Severity::Info);
  s.selection.push_back({std::vector<std::string>{"TRL9"}, {}, {}});
  CHECK_FALSE(s.enabled("TRL101"));
  s.selection.push_back({std::nullopt, {"packing-with-context-parallelism"}, {"TRL905"}});
  CHECK(s.enabled("TRL101"));
  CHECK_FALSE(s.enabled("TRL905"));
}

TEST_CASE("findings follow the configuration of their file", "[config]") {
  ConfigDir d;
  write_cp_project(d);
  write_cp_launch(d);
  SECTION("no configuration: the finding") {
    Configuration config(ConfigOptions{});
    auto diags = lint(d.path.string(), config);
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].code == "TRL101");
    CHECK(diags[0].severity == Severity::Error);
  }
  SECTION("severity override") {
    d.write(".trl-lint.yaml", "severity: {TRL101: warning}\n");
    Configuration config(ConfigOptions{});
    auto diags = lint(d.path.string(), config);
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].severity == Severity::Warning);
  }
  SECTION("per-file-ignores on the file of the primary location") {
    d.write(".trl-lint.yaml", "per-file-ignores:\n  'recipes/sft*.yaml': [TRL1]\n");
    Configuration config(ConfigOptions{});
    CHECK(lint(d.path.string(), config).empty());
  }
  SECTION("a per-file ignore of another file does not apply") {
    d.write(".trl-lint.yaml", "per-file-ignores:\n  'scripts/*.py': [TRL101]\n");
    Configuration config(ConfigOptions{});
    CHECK(lint(d.path.string(), config).size() == 1);
  }
  SECTION("a nested configuration governs its folder only") {
    d.write("recipes/.trl-lint.yaml", "ignore: [TRL101]\n");
    Configuration config(ConfigOptions{});
    CHECK(lint(d.path.string(), config).empty());
  }
  SECTION("exclude removes the launch, so the run is never built") {
    d.write(".trl-lint.yaml", "exclude: ['launch.sh']\n");
    Configuration config(ConfigOptions{});
    CHECK(lint(d.path.string(), config).empty());
  }
}

TEST_CASE("declared runs become training runs", "[config]") {
  ConfigDir d;
  write_cp_project(d);  // no launch line anywhere: the script alone shows no context parallelism
  SECTION("without the declaration, nothing fires") {
    Configuration config(ConfigOptions{});
    CHECK(lint(d.path.string(), config).empty());
  }
  SECTION("the declared launch fires, and the script is not also a bare run") {
    d.write(".trl-lint.yaml",
            "target-versions: {trl: '0.19.1'}\n"
            "runs:\n"
            "  - name: long-context\n"
            "    script: scripts/sft.py\n"
            "    config: recipes/sft.yaml\n"
            "    accelerate-config: recipes/accel_cp2.yaml\n");
    Configuration config(ConfigOptions{});
    std::vector<TrainingRun> runs;
    auto diags = lint(d.path.string(), config, &runs);
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].name == "long-context");
    CHECK(runs[0].target_versions.at("trl") == "0.19.1");
    CHECK(runs[0].cp_size.as_int() == 2);
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].code == "TRL101");
    CHECK(relative_path_of(diags[0], d) == "recipes/sft.yaml");
  }
  SECTION("command-line arguments of the declared run override the YAML") {
    d.write(".trl-lint.yaml",
            "runs:\n  - script: scripts/sft.py\n    config: recipes/sft.yaml\n"
            "    accelerate-config: recipes/accel_cp2.yaml\n    args: [--packing, 'false']\n");
    Configuration config(ConfigOptions{});
    CHECK(lint(d.path.string(), config).empty());
  }
  SECTION("env of a declared run") {
    d.write(".trl-lint.yaml",
            "runs:\n  - script: scripts/sft.py\n    config: recipes/sft.yaml\n"
            "    env: {ACCELERATE_USE_PARALLELISM_CONFIG: 'true', PARALLELISM_CONFIG_CP_SIZE: '4'}\n");
    Configuration config(ConfigOptions{});
    std::vector<TrainingRun> runs;
    auto diags = lint(d.path.string(), config, &runs);
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].cp_size.as_int() == 4);
    CHECK(diags.size() == 1);
  }
  SECTION("a declared run in a subfolder's configuration resolves paths from there") {
    ConfigDir m;
    write_cp_project(m, "exp/");
    m.write("exp/.trl-lint.yaml",
            "runs:\n  - script: scripts/sft.py\n    config: recipes/sft.yaml\n"
            "    accelerate-config: recipes/accel_cp2.yaml\n");
    Configuration config(ConfigOptions{});
    auto diags = lint(m.path.string(), config);
    REQUIRE(diags.size() == 1);
    CHECK(relative_path_of(diags[0], m) == "exp/recipes/sft.yaml");
  }
}
