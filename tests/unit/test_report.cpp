// The report layer: comments as suppressions see them, noqa parsing and matching, the
// fingerprints and escapes of the machine formats, baselines, and the formats end to end.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analyzer/config/apply.hpp"
#include "analyzer/config/configuration.hpp"
#include "analyzer/eval/python_eval.hpp"
#include "analyzer/eval/run_builder.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/makefile/makefile_comments.hpp"
#include "analyzer/pipeline/judge.hpp"
#include "analyzer/pipeline/rule_context_builder.hpp"
#include "analyzer/pipeline/suppression.hpp"
#include "analyzer/python/python_extractor.hpp"
#include "analyzer/report/baseline.hpp"
#include "analyzer/report/fingerprint.hpp"
#include "analyzer/report/formatters.hpp"
#include "analyzer/report/location.hpp"
#include "analyzer/report/views.hpp"
#include "analyzer/shell/shell_extractor.hpp"
#include "analyzer/yaml/yaml_extractor.hpp"
#include "rules/registry.hpp"

using namespace trl;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> texts(const std::vector<Comment>& comments) {
  std::vector<std::string> out;
  out.reserve(comments.size());
  for (const auto& c : comments) out.push_back(c.text);
  return out;
}

std::vector<std::string> codes(const NoqaDirective& d) {
  std::vector<std::string> out;
  out.reserve(d.codes.size());
  for (const auto& c : d.codes) out.push_back(c.code);
  return out;
}

std::vector<NoqaDirective> noqa(const std::string& comment) {
  Span s{0, 10, static_cast<std::uint32_t>(10 + comment.size()), Point{3, 10},
         Point{3, static_cast<std::uint32_t>(10 + comment.size())}};
  return parse_noqa(comment, s);
}

struct TempProject {
  fs::path path;
  fs::path old_cwd = fs::current_path();
  explicit TempProject(const std::map<std::string, std::string>& files) {
    static int counter = 0;
    path =
        fs::temp_directory_path() / ("trl-lint-report-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    for (const auto& [rel, text] : files) {
      fs::create_directories((path / rel).parent_path());
      std::ofstream(path / rel, std::ios::binary) << text;
    }
    fs::current_path(path);
  }
  ~TempProject() {
    std::error_code ec;
    fs::current_path(old_cwd, ec);
    fs::remove_all(path, ec);
  }
};

const std::map<std::string, std::string> kCrossFile = {
    {"launch.sh", "accelerate launch --config_file accel.yaml \\\n    sft.py --config sft.yaml\n"},
    {"accel.yaml", "distributed_type: FSDP\nnum_processes: 2\nparallelism_config:\n  parallelism_config_cp_size: 2\n"},
    {"sft.yaml", "model_name_or_path: Qwen/Qwen2.5-0.5B\npacking: true\n"},
    {"sft.py",
     "from trl import SFTConfig, SFTTrainer, TrlParser\n"
     "parser = TrlParser((SFTConfig,))\n(args,) = parser.parse_args_and_config()\n"
     "SFTTrainer(model='m', args=args).train()\n"},
};

struct Analysis {
  Project project;
  std::vector<Diagnostic> diags;
};

// These tests are about suppressions and formats of TRL101 and the TRL9xx codes; the fixtures'
// other true findings (TRL201 packing without FlashAttention, ...) are not their subject.
Analysis analyse(const Selection& selection = Selection{{"TRL101", "TRL9"}, {}}) {
  Analysis a;
  LoadOptions o;
  o.threads = 1;
  a.project = load_project(o);
  auto runs = build_runs(a.project, Knowledge::get());
  a.diags = collect_diagnostics(a.project, runs, selection);
  apply_suppressions(a.project, a.diags, selection);
  return a;
}

std::string concise(const Analysis& a) {
  std::ostringstream out;
  print_concise(out, a.diags, a.project);
  return out.str();
}

}  // namespace

TEST_CASE("comments: a # inside a string is not a comment", "[report][comments]") {
  auto py =
      python::extract("x = f(a='# noqa: TRL101', b=\"#\")  # real\ns = '''\n# in a docstring\n'''\n# own line\n", 0);
  CHECK(texts(py.comments) == std::vector<std::string>{"# real", "# own line"});
  auto y = yaml::extract("a: 'x # not'\nb: \"# not\"\nc: d#e\nf: g # yes\n# top\n", 0);
  CHECK(texts(y.comments) == std::vector<std::string>{"# yes", "# top"});
  auto sh = shell::extract("#!/bin/bash\necho \"# not\" '# not' a#b # yes\ncat <<EOF\n# heredoc\nEOF\n", 0);
  CHECK(texts(sh.comments) == std::vector<std::string>{"#!/bin/bash", "# yes"});
}

TEST_CASE("comments: Makefiles", "[report][comments]") {
  auto c = makefile::comments(
      "# top\nX = a \\# b # x\ntrain:\n\techo \"# not\" '# not' a#b # shell\n\tpython t.py \\\n\t  --y 1 # end\n", 7);
  CHECK(texts(c) == std::vector<std::string>{"# top", "# x", "# shell", "# end"});
  REQUIRE(c.size() == 4);
  CHECK(c[1].span.file == 7);
  CHECK(c[1].span.start == Point{1, 11});
  CHECK(c[3].span.start.line == 5);
}

TEST_CASE("noqa: forms", "[report][noqa]") {
  auto d = noqa("# noqa: TRL101");
  REQUIRE(d.size() == 1);
  CHECK_FALSE(d[0].blanket);
  CHECK_FALSE(d[0].file_level);
  CHECK(codes(d[0]) == std::vector<std::string>{"TRL101"});
  CHECK(d[0].codes[0].span.start == Point{3, 18});

  CHECK(codes(noqa("#noqa:TRL101,TRL102")[0]) == std::vector<std::string>{"TRL101", "TRL102"});
  CHECK(codes(noqa("# NOQA: TRL101 TRL102 because of reasons")[0]) == std::vector<std::string>{"TRL101", "TRL102"});
  CHECK(codes(noqa("# noqa: E501, trl101")[0]) == std::vector<std::string>{"E501", "TRL101"});
  CHECK(noqa("# noqa")[0].blanket);
  // A colon promises codes: without one the directive suppresses nothing (ruff: "missing codes"),
  // where it used to silence every code on the line.
  for (const char* bad : {"# noqa:", "# noqa: packing-with-context-parallelism", "# noqa:TRL101x", "# noqa: TRL-101",
                          "# trl-lint: noqa: packing-with-context-parallelism"}) {
    INFO(bad);
    auto b = noqa(bad);
    REQUIRE(b.size() == 1);
    CHECK_FALSE(b[0].blanket);
    CHECK(b[0].invalid);
    CHECK(b[0].codes.empty());
  }
  CHECK(noqa("# noqa: packing-with-context-parallelism")[0].invalid_word == "packing-with-context-parallelism");
  CHECK(noqa("# noqa:TRL101x")[0].invalid_word == "TRL101x");
  CHECK(noqa("# noqa:")[0].invalid_word.empty());
  CHECK_FALSE(noqa("# noqa: TRL101, packing")[0].invalid);  // a code first: the list ends at the word
  CHECK(noqa("# noqa E501")[0].blanket);                    // as flake8 reads it
  CHECK(noqa("# type: ignore  # noqa: TRL101").size() == 1);
  CHECK(noqa("# noqanything").empty());
  CHECK(noqa("# see noqa docs").empty());
  CHECK(noqa("# trl-lint: noqa")[0].file_level);
  CHECK(noqa("# trl-lint: noqa")[0].blanket);
  auto f = noqa("# trl-lint: noqa: TRL101");
  CHECK(f[0].file_level);
  CHECK(codes(f[0]) == std::vector<std::string>{"TRL101"});
  CHECK(noqa("# trl-lint: enable").empty());
}

TEST_CASE("suppression: a rule name after `noqa:` gets the hint to write its code, TRL9xx names too",
          "[report][noqa]") {
  auto files = kCrossFile;
  for (const auto& [name, code] : {std::pair<std::string, std::string>{"packing-with-context-parallelism", "TRL101"},
                                   {"syntax-error", "TRL903"},
                                   {"unused-noqa", "TRL910"}}) {
    INFO(name);
    files["sft.yaml"] = "model_name_or_path: Qwen/Qwen2.5-0.5B\npacking: true  # noqa: " + name + "\n";
    TempProject p(files);
    const Analysis a = analyse();
    const auto invalid = std::find_if(a.diags.begin(), a.diags.end(), [](const Diagnostic& d) {
      return d.code == "TRL910" && d.message.find("is not a rule code") != std::string::npos;
    });
    REQUIRE(invalid != a.diags.end());
    CHECK(invalid->help == "write the rule's code: `# noqa: " + code + "`");
  }
}

TEST_CASE("suppression: primary location, related location, file level", "[report][noqa]") {
  {
    TempProject p(kCrossFile);
    CHECK(concise(analyse()) ==
          "sft.yaml:2:1: TRL101 `packing` with context parallelism (cp_size=2) breaks document isolation\n");
  }
  auto with = [](const std::string& file, const std::string& text) {
    auto files = kCrossFile;
    files[file] = text;
    return files;
  };
  {
    TempProject p(with("sft.yaml", "model_name_or_path: Qwen/Qwen2.5-0.5B\npacking: true  # noqa: TRL101\n"));
    CHECK(concise(analyse()).empty());
  }
  {
    // On a related location: the accelerate YAML that enables context parallelism.
    TempProject p(with("accel.yaml",
                       "distributed_type: FSDP\nnum_processes: 2\nparallelism_config:\n"
                       "  parallelism_config_cp_size: 2  # noqa: TRL101\n"));
    CHECK(concise(analyse()).empty());
  }
  {
    // On the last line of a multi-line launch command (the other related location).
    TempProject p(with(
        "launch.sh", "accelerate launch --config_file accel.yaml \\\n    sft.py --config sft.yaml  # noqa: TRL101\n"));
    CHECK(concise(analyse()).empty());
  }
  {
    TempProject p(with("accel.yaml",
                       "# trl-lint: noqa: TRL101\ndistributed_type: FSDP\nnum_processes: 2\nparallelism_config:\n"
                       "  parallelism_config_cp_size: 2\n"));
    CHECK(concise(analyse()).empty());
  }
  {
    // A code of another rule, or another tool, does not suppress; the TRL code of an enabled
    // rule that suppresses nothing is reported.
    TempProject p(
        with("sft.yaml", "model_name_or_path: Qwen/Qwen2.5-0.5B  # noqa: TRL101\npacking: true  # noqa: E501\n"));
    auto a = analyse();
    CHECK(concise(a) ==
          "sft.yaml:1:40: TRL910 unused `noqa` directive (unused: `TRL101`)\n"
          "sft.yaml:2:1: TRL101 `packing` with context parallelism (cp_size=2) breaks document isolation\n");
    REQUIRE(a.diags[0].fixes.size() == 1);
    const TextEdit& e = a.diags[0].fixes[0].edits.at(0);
    CHECK(a.project.sources.get(e.span.file).text.substr(e.span.begin, e.span.end - e.span.begin) ==
          "  # noqa: TRL101");
    CHECK(e.replacement.empty());
    // Not reported when the named rule is not enabled, nor when TRL910 is not.
    CHECK(concise(analyse(Selection{{"TRL101", "TRL9"}, {"TRL101"}})).empty());
    CHECK(concise(analyse(Selection{{"TRL101"}, {}})) ==
          "sft.yaml:2:1: TRL101 `packing` with context parallelism (cp_size=2) breaks document isolation\n");
  }
  {
    // Partly used: the fix keeps the used code and the other tool's.
    TempProject p(
        with("sft.yaml", "model_name_or_path: Qwen/Qwen2.5-0.5B\npacking: true  # noqa: TRL101, TRL903, E501\n"));
    auto a = analyse();
    REQUIRE(a.diags.size() == 1);
    CHECK(a.diags[0].message == "unused `noqa` directive (unused: `TRL903`)");
    REQUIRE(a.diags[0].fixes.size() == 1);
    CHECK(a.diags[0].fixes[0].edits.at(0).replacement == "TRL101, E501");
  }
}

TEST_CASE("fingerprints match codeql-action's primaryLocationLineHash", "[report][sarif]") {
  // Expected values computed independently (BigInt port of codeql-action src/fingerprints.ts).
  const std::string text =
      "packing: true  # x\n\nfoo:\r\n  bar: \"\xC3\xA9\xF0\x9F\x98\x80\"\nfoo:\r\n  bar: "
      "\"\xC3\xA9\xF0\x9F\x98\x80\"\nlast";
  auto fp = line_fingerprints(text);
  REQUIRE(fp.size() >= 7);
  CHECK(fp[0] == "c6ecab44461fe1bf:1");
  CHECK(fp[1] == "4c38813ac9e9d1ab:1");
  CHECK(fp[2] == "c0a87792faabb4d:1");
  CHECK(fp[3] == "c442bc0808ef3ff5:1");
  CHECK(fp[6] == "58429ecce5a8d0db:1");
  // Identical tails give identical hashes; the counter tells them apart.
  auto same = line_fingerprints("a\na\n");
  REQUIRE(same.size() >= 2);
  CHECK(same[0] != same[1]);
  auto rep = line_fingerprints(std::string(150, 'x') + "\n" + std::string(150, 'x') + "\n" + std::string(150, 'x'));
  CHECK(rep[0].substr(0, rep[0].find(':')) == rep[1].substr(0, rep[1].find(':')));
  CHECK(rep[0].substr(rep[0].find(':')) == ":1");
  CHECK(rep[1].substr(rep[1].find(':')) == ":2");
  CHECK(line_fingerprints("").size() == 1);
}

TEST_CASE("escapes and URIs", "[report]") {
  CHECK(github_escape_data("100% done\r\nnext: a,b") == "100%25 done%0D%0Anext: a,b");
  CHECK(github_escape_property("dir,a/b:c%\n") == "dir%2Ca/b%3Ac%25%0A");
  CHECK(uri_path("my recipes/sft#1.yaml") == "my%20recipes/sft%231.yaml");
  CHECK(uri_path("a:b/\xC3\xA9.yaml") == "a%3Ab/%C3%A9.yaml");
  CHECK(normalized_line("  packing:\t true   # x ") == "packing: true # x");
}

TEST_CASE("machine formats: json, github, sarif", "[report][formats]") {
  auto files = kCrossFile;
  files["sft.yaml"] = "# \xC3\xA9t\xC3\xA9\n\xC3\xA9: 1\npacking: true\n";
  TempProject p(files);
  auto a = analyse();
  REQUIRE(a.diags.size() == 1);
  std::ostringstream js, gh, sa;
  print_json(js, a.diags, a.project);
  auto j = nlohmann::json::parse(js.str());
  REQUIRE(j.size() == 1);
  CHECK(j[0]["code"] == "TRL101");
  CHECK(j[0]["location"] == nlohmann::json{{"path", "sft.yaml"}, {"line", 3}, {"column", 1}});
  CHECK(j[0]["end_location"]["column"] == 8);
  REQUIRE(j[0]["related"].size() == 2);
  CHECK(j[0]["related"][0]["location"]["path"] == "accel.yaml");
  CHECK(j[0]["related"][1]["end_location"] == nlohmann::json{{"path", "launch.sh"}, {"line", 2}, {"column", 29}});
  print_github(gh, a.diags, a.project);
  CHECK(gh.str().rfind("::error file=sft.yaml,line=3,col=1,endLine=3,endColumn=8,title=TRL101 "
                       "(packing-with-context-parallelism)::`packing` with",
                       0) == 0);
  CHECK(gh.str().find("%0Anote: accel.yaml:4:3: ") != std::string::npos);
  print_sarif(sa, a.diags, a.project);
  auto s = nlohmann::json::parse(sa.str());
  const auto& run = s["runs"][0];
  CHECK(s["version"] == "2.1.0");
  CHECK(run["columnKind"] == "unicodeCodePoints");
  const auto& rules = run["tool"]["driver"]["rules"];
  CHECK(rules.size() == all_rule_infos().size());
  const auto& r = run["results"][0];
  CHECK(rules[r["ruleIndex"].get<std::size_t>()]["id"] == "TRL101");
  CHECK(r["locations"][0]["physicalLocation"]["artifactLocation"] ==
        nlohmann::json{{"uri", "sft.yaml"}, {"uriBaseId", "%SRCROOT%"}});
  CHECK(r["relatedLocations"].size() == 2);
  CHECK(r["codeFlows"][0]["threadFlows"][0]["locations"].size() == 3);
  CHECK(r["partialFingerprints"]["primaryLocationLineHash"] == line_fingerprints(files["sft.yaml"])[2]);
}

TEST_CASE("columns count code points", "[report][formats]") {
  auto files = kCrossFile;
  files["launch.sh"] = "accelerate launch --config_file accel.yaml train.py\n";
  files["train.py"] =
      "from trl import SFTConfig, SFTTrainer\n"
      "args = SFTConfig(output_dir=\"\xC3\xA9\xF0\x9F\x98\x80\", packing=True)\n"
      "SFTTrainer(model='m', args=args).train()\n";
  TempProject p(files);
  auto a = analyse();
  REQUIRE(a.diags.size() == 1);
  // `é😀` is 2 code points (3 UTF-16 units, 6 bytes): `packing=True` spans columns 35 to 47.
  CHECK(start_position(a.project, a.diags[0].span).column == 35);
  CHECK(end_position(a.project, a.diags[0].span).column == 47);
  CHECK(a.diags[0].span.start.column == 38);  // bytes
}

TEST_CASE("baseline: survives line shifts, reports new findings", "[report][baseline]") {
  TempProject p(kCrossFile);
  auto a = analyse();
  REQUIRE(a.diags.size() == 1);
  write_baseline("baseline.json", a.diags, a.project);
  auto doc = nlohmann::json::parse(std::ifstream("baseline.json"));
  CHECK(doc["findings"] ==
        nlohmann::json::parse(R"([{"path":"sft.yaml","code":"TRL101","line":"packing: true","count":1}])"));
  std::ofstream("sft.yaml")
      << "# moved down\n\nmodel_name_or_path: Qwen/Qwen2.5-0.5B\n  \npacking:   true\neval_packing: true\n";
  auto b = analyse();
  REQUIRE(b.diags.size() == 2);
  CHECK(apply_baseline("baseline.json", b.diags, b.project) == 1);
  REQUIRE(b.diags.size() == 1);
  CHECK(b.diags[0].message.rfind("`eval_packing`", 0) == 0);
  std::ofstream("bad.json") << "[1, 2]";
  CHECK_THROWS_AS(apply_baseline("bad.json", b.diags, b.project), BaselineError);
  CHECK_THROWS_AS(apply_baseline("missing.json", b.diags, b.project), BaselineError);
}

TEST_CASE("building and judging on several threads gives every fixture project the runs and findings of one thread",
          "[report][threads]") {
  // Runs are built on several threads (launches, then entry scripts, each on whichever thread
  // is free, with a builder of its own, sharing the script cache under a lock) and joined in
  // the order one thread builds them; rules are spread over the threads (each rule on one) and
  // their findings joined in the rules' order. The runs listing and whole findings (json:
  // notes, related locations, fixes) are compared, with and without the script cache the CLI
  // gives the builder and the rules that read the scripts' evaluations.
  std::size_t projects = 0, with_findings = 0, with_runs = 0, declared_total = 0;
  for (const auto& group : fs::directory_iterator(fs::path(TRL_LINT_FIXTURES_DIR))) {
    if (!group.is_directory()) continue;
    for (const auto& dir : fs::directory_iterator(group.path())) {
      if (!dir.is_directory()) continue;
      LoadOptions o;
      o.threads = 1;
      o.paths = {dir.path().string()};
      Project project = load_project(o);
      // The runs the fixture's configuration declares (`runs:`), as the CLI builds them.
      Configuration config(ConfigOptions{});
      const auto declared = declared_runs(project, config);
      declared_total += declared.size();
      for (bool cache : {false, true}) {
        auto analysed = [&](unsigned threads) {
          project.script_cache = cache ? std::make_shared<ScriptCache>() : nullptr;
          const auto runs = build_runs(project, Knowledge::get(), declared, threads);
          std::ostringstream out;
          print_runs(out, runs, project);
          out << "--\n";
          print_json(out, collect_diagnostics(project, runs, Selection{}, threads), project);
          return std::pair{out.str(), runs.size()};
        };
        const auto [one, runs] = analysed(1);
        for (unsigned threads : {2u, 3u, 8u, 0u}) {
          INFO(dir.path().string() << " with " << threads << " threads, script cache " << cache);
          CHECK(analysed(threads).first == one);
        }
        if (!cache) {
          with_findings += one.find("\"code\"") != std::string::npos ? 1 : 0;
          with_runs += runs > 1 ? 1 : 0;
        }
      }
      ++projects;
    }
  }
  CHECK(projects > 200);
  CHECK(with_findings > 150);
  CHECK(with_runs > 15);       // projects of several runs, which the threads share
  CHECK(declared_total >= 2);  // runs declared in a configuration are built on the threads too
}

TEST_CASE(
    "judging in parts (runs, scripts, files, as the LSP server keeps them) gives every fixture project the "
    "findings of collect_diagnostics",
    "[report][parts]") {
  // The rules judge three kinds of part, each from its own inputs (rules/rule.hpp); the LSP server
  // keeps each part's findings and judges again only what an edit touched. Joined in the order
  // collect_diagnostics judges them (runs, scripts, files) and finished, the parts must be the
  // whole: same findings, and where several parts reach one place, the same one kept.
  std::size_t projects = 0, scripts_judged = 0, files_judged = 0;
  for (const auto& group : fs::directory_iterator(fs::path(TRL_LINT_FIXTURES_DIR))) {
    if (!group.is_directory()) continue;
    for (const auto& dir : fs::directory_iterator(group.path())) {
      if (!dir.is_directory()) continue;
      LoadOptions o;
      o.paths = {dir.path().string()};
      Project project = load_project(o);
      project.script_cache = std::make_shared<ScriptCache>();
      Configuration config(ConfigOptions{});
      const auto runs = build_runs(project, Knowledge::get(), declared_runs(project, config));
      std::ostringstream whole, parts;
      print_json(whole, collect_diagnostics(project, runs, Selection{}), project);
      std::vector<Diagnostic> diags;
      std::set<FileId> read;
      for (const auto& run : runs) {
        const std::set<FileId> files = run_files(run);
        read.insert(files.begin(), files.end());
      }
      file_problem_diagnostics(project, read, diags);
      const RuleContext context = make_rule_context(project);
      for (const auto& run : runs) run_diagnostics(project, context, run, Selection{}, diags);
      for_each_script(project, Knowledge::get(), [&](FileId id, const ScriptSummary& summary) {
        script_diagnostics(context, id, summary, Selection{}, diags);
        ++scripts_judged;
      });
      const std::vector<FileUses> uses = file_uses(project, runs);
      REQUIRE(uses.size() == project.sources.size());
      for (FileId id = 0; id < project.sources.size(); ++id)
        if (judged_as_file(project, id, uses[id])) {
          file_diagnostics(context, id, uses[id], Selection{}, diags);
          ++files_judged;
        }
      finish_diagnostics(project, Selection{}, diags);
      print_json(parts, diags, project);
      INFO(dir.path().string());
      CHECK(parts.str() == whole.str());
      ++projects;
    }
  }
  CHECK(projects > 200);
  CHECK(scripts_judged > 200);
  CHECK(files_judged > 200);
}

TEST_CASE("merging findings: the first of one code at one place with one merge key is kept", "[report][parts]") {
  auto diag = [](const std::string& code, FileId file, std::uint32_t begin, std::optional<std::string> key,
                 const std::string& message) {
    Diagnostic d;
    d.code = code;
    d.span.file = file;
    d.span.begin = begin;
    d.span.end = begin + 1;
    d.merge_key = std::move(key);
    d.message = message;
    return d;
  };
  std::vector<Diagnostic> diags = {
      diag("TRL501", 0, 10, "max_seq_length", "first run"),
      diag("TRL501", 0, 10, "max_seq_length", "second run (another target version)"),  // merged
      diag("TRL501", 0, 10, "tokenizer", "another old name at the same word"),
      diag("TRL502", 0, 10, "max_seq_length", "another code"),
      diag("TRL501", 1, 10, "max_seq_length", "another file"),
      diag("TRL501", 0, 11, "max_seq_length", "another place"),
      diag("TRL001", 0, 10, "", "an empty key is a key"),
      diag("TRL001", 0, 10, "", "merged too"),  // merged
      diag("TRL101", 0, 10, std::nullopt, "no key: never merged"),
      diag("TRL101", 0, 10, std::nullopt, "no key: never merged"),
  };
  merge_findings(diags);
  std::vector<std::string> kept;
  kept.reserve(diags.size());
  for (const auto& d : diags) kept.push_back(d.message);
  CHECK(kept == std::vector<std::string>{"first run", "another old name at the same word", "another code",
                                         "another file", "another place", "an empty key is a key",
                                         "no key: never merged", "no key: never merged"});
}

TEST_CASE("building on several threads: forty launches sharing ten scripts, their modules and configs",
          "[report][threads]") {
  // Launches on different threads evaluate the same scripts (and the modules they import) at
  // the same time: each evaluation is the same whichever thread makes it, and the cache keeps
  // one. Every run must come out as one thread builds it, in the same order.
  std::map<std::string, std::string> files;
  std::string launch = "#!/bin/bash\n";
  for (int i = 0; i < 40; ++i)
    launch += "accelerate launch --config_file acc" + std::to_string(i % 3) + ".yaml train" + std::to_string(i % 10) +
              ".py --config cfg" + std::to_string(i % 5) + ".yaml --per_device_train_batch_size " +
              std::to_string(1 + i % 4) + "\n";
  files["launch.sh"] = launch;
  for (int k = 0; k < 10; ++k)
    files["train" + std::to_string(k) + ".py"] =
        "from trl import SFTConfig, SFTTrainer, TrlParser\nfrom helpers import KW" + std::to_string(k % 2) +
        " as KW\nparser = TrlParser((SFTConfig,))\n(args,) = parser.parse_args_and_config()\n"
        "SFTTrainer(model='m', args=args, **KW).train()\n";
  files["helpers.py"] = "KW0 = {}\nKW1 = {'peft_config': None}\n";
  for (int c = 0; c < 5; ++c)
    files["cfg" + std::to_string(c) + ".yaml"] =
        "model_name_or_path: Qwen/Qwen2.5-0.5B\npacking: " + std::string(c % 2 ? "true" : "false") +
        "\nmax_length: " + std::to_string(1024 * (c + 1)) + "\n";
  for (int a = 0; a < 3; ++a)
    files["acc" + std::to_string(a) + ".yaml"] =
        "distributed_type: FSDP\nnum_processes: " + std::to_string(2 + 2 * a) +
        "\nparallelism_config:\n  parallelism_config_cp_size: " + std::to_string(a + 1) + "\n";
  TempProject dir(files);
  LoadOptions o;
  o.threads = 1;
  Project project = load_project(o);
  auto analysed = [&](unsigned threads) {
    project.script_cache = std::make_shared<ScriptCache>();
    const auto runs = build_runs(project, Knowledge::get(), {}, threads);
    std::ostringstream out;
    for (const auto& r : runs) print_run(out, r, project);
    out << "--\n";
    print_json(out, collect_diagnostics(project, runs, Selection{}, threads), project);
    return std::pair{out.str(), runs.size()};
  };
  const auto [one, runs] = analysed(1);
  CHECK(runs == 40);
  CHECK(one.find("TRL101") != std::string::npos);
  for (int round = 0; round < 5; ++round)
    for (unsigned threads : {2u, 4u, 8u}) {
      INFO("round " << round << ", " << threads << " threads");
      CHECK(analysed(threads).first == one);
    }
}

TEST_CASE("building runs: a docs launch whose Python block stands in for its script leaves later entry scripts whole",
          "[report][threads]") {
  // README.md's launch names a script the project lacks; the Python block of its section stands
  // in for it, and only the trainer configs on those lines count for that launch. The entry
  // scripts built after it (a1.py ... a6.py, run on their own) are not filtered by those lines:
  // each keeps its run, on one thread or several, whichever thread built the docs launch.
  std::map<std::string, std::string> files;
  files["0run.sh"] = "accelerate launch train_main.py\n";
  const std::string script =
      "from trl import SFTConfig, SFTTrainer\nargs = SFTConfig(output_dir='o')\nSFTTrainer(model='m', "
      "args=args).train()\n";
  files["train_main.py"] = script;
  files["README.md"] =
      "# Project\n\n## Quick start\n\n```python\nfrom trl import SFTConfig, SFTTrainer\n"
      "args = SFTConfig(output_dir='o', packing=True)\nSFTTrainer(model='m', args=args).train()\n```\n\n"
      "```bash\naccelerate launch examples/missing_train.py\n```\n";
  files["examples/notes.txt"] = "not a script\n";
  for (int i = 1; i <= 6; ++i) files["a" + std::to_string(i) + ".py"] = script;
  TempProject dir(files);
  LoadOptions o;
  o.threads = 1;
  Project project = load_project(o);
  auto listing = [&](unsigned threads, std::size_t& scripts, bool& stand_in) {
    project.script_cache = std::make_shared<ScriptCache>();
    const auto runs = build_runs(project, Knowledge::get(), {}, threads);
    scripts = 0;
    stand_in = false;
    for (const auto& r : runs) {
      scripts += r.origin.kind == RunOrigin::Kind::Script ? 1 : 0;
      for (const auto& ref : r.references) stand_in = stand_in || !ref.stand_in.empty();
    }
    std::ostringstream out;
    for (const auto& r : runs) print_run(out, r, project);
    return out.str();
  };
  std::size_t scripts = 0;
  bool stand_in = false;
  const std::string one = listing(1, scripts, stand_in);
  CHECK(stand_in);      // the docs launch took its section's block
  CHECK(scripts == 6);  // a1.py ... a6.py, each on its own
  for (int round = 0; round < 10; ++round)
    for (unsigned threads : {2u, 4u}) {
      INFO("round " << round << ", " << threads << " threads");
      std::size_t n = 0;
      bool s = false;
      CHECK(listing(threads, n, s) == one);
    }
}
