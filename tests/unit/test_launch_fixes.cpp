// Launch extraction details found in review: YAML folding in workflow steps, Markdown blocks
// apart, `cd` forms, the script's folder in paths, null words, Slurm gres lists, Makefiles.
#include <catch2/catch.hpp>

#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/link/launch.hpp"
#include "analyzer/make/makefile_extractor.hpp"
#include "analyzer/markdown/markdown_extractor.hpp"
#include "analyzer/shell/shell_extractor.hpp"
#include "analyzer/yaml/workflow.hpp"
#include "analyzer/yaml/yaml_extractor.hpp"

using namespace trl;

namespace {
std::vector<std::string> words(const CommandFact& c) {
  std::vector<std::string> out;
  for (const auto& w : c.argv) out.push_back(w.known ? w.text : "?");
  return out;
}

shell::ShellFacts workflow(const std::string& text) {
  auto y = yaml::extract(text, 0);
  REQUIRE(y.documents.size() == 1);
  return yaml::workflow_commands(y.documents[0], text, 0);
}
}  // namespace

TEST_CASE("workflow: a folded run: scalar is one command, as YAML folds it", "[workflow]") {
  const std::string wf =
      "on: push\n"
      "jobs:\n"
      "  train:\n"
      "    steps:\n"
      "      - run: >\n"
      "          accelerate launch --config_file recipes/fsdp.yaml scripts/sft.py\n"
      "          --config recipes/sft.yaml\n"
      "\n"
      "          torchrun t.py\n"
      "      - run: accelerate launch --config_file a.yaml s.py\n"
      "          --config b.yaml\n"
      "      - run: |\n"
      "          accelerate launch --config_file c.yaml t.py\n"
      "          --config d.yaml\n"
      "      - run: >\n"
      "          accelerate launch --config_file e.yaml u.py\n"
      "            --config f.yaml\n";
  auto facts = workflow(wf);
  std::vector<std::vector<std::string>> launches;
  for (const auto& c : facts.commands)
    if (!c.argv.empty() && c.argv[0].text == "accelerate") launches.push_back(words(c));
  REQUIRE(launches.size() == 4);
  CHECK(launches[0] == std::vector<std::string>{"accelerate", "launch", "--config_file", "recipes/fsdp.yaml",
                                                "scripts/sft.py", "--config", "recipes/sft.yaml"});
  CHECK(launches[1] ==
        std::vector<std::string>{"accelerate", "launch", "--config_file", "a.yaml", "s.py", "--config", "b.yaml"});
  // A literal block keeps its lines: two commands.
  CHECK(launches[2] == std::vector<std::string>{"accelerate", "launch", "--config_file", "c.yaml", "t.py"});
  // A more-indented line keeps its line break in a folded block.
  CHECK(launches[3] == std::vector<std::string>{"accelerate", "launch", "--config_file", "e.yaml", "u.py"});
  // Spans stay on the file's lines.
  for (const auto& c : facts.commands)
    if (!c.argv.empty() && c.argv[0].text == "accelerate" && c.argv.size() == 7 && c.argv[3].text == "a.yaml") {
      CHECK(c.span.start.line == 9);
      CHECK(c.argv.back().span.start.line == 10);
      CHECK(c.argv.back().span.start.column == 19);
    }
  bool torchrun = false;
  for (const auto& c : facts.commands) torchrun = torchrun || (!c.argv.empty() && c.argv[0].text == "torchrun");
  CHECK(torchrun);  // the empty line keeps a line break: `torchrun t.py` is its own command
}

TEST_CASE("workflow: defaults.run.working-directory of the workflow applies to its jobs", "[workflow]") {
  const std::string wf =
      "on: push\n"
      "defaults:\n"
      "  run:\n"
      "    working-directory: exp\n"
      "jobs:\n"
      "  a:\n"
      "    steps:\n"
      "      - run: accelerate launch --config_file c.yaml s.py\n"
      "  b:\n"
      "    defaults:\n"
      "      run:\n"
      "        working-directory: other\n"
      "    steps:\n"
      "      - run: accelerate launch --config_file c.yaml s.py\n";
  auto facts = workflow(wf);
  REQUIRE(facts.commands.size() == 2);
  CHECK(facts.commands[0].cwd == "../../exp");
  CHECK(facts.commands[1].cwd == "../../other");
}

namespace {
shell::ShellFacts markdown_session(const std::string& md) {
  auto doc = markdown::scan(md);
  std::vector<shell::SessionPiece> pieces;
  for (const auto& b : doc.blocks)
    if (b.lang == markdown::BlockLang::Shell && b.end > b.begin) pieces.push_back({b.begin, b.end, b.first_line});
  return shell::extract_session(doc.shell_text, pieces, 0);
}
const CommandFact* find_launch(const shell::ShellFacts& f, std::size_t n = 0) {
  for (const auto& c : f.commands)
    if (!c.argv.empty() && c.argv[0].known && (c.argv[0].text == "accelerate" || c.argv[0].text == "torchrun") &&
        n-- == 0)
      return &c;
  return nullptr;
}
}  // namespace

TEST_CASE("Markdown: a syntax error in one block does not reach the next", "[markdown]") {
  const std::string md =
      "# Demo\n\n```bash\nexport HF_TOKEN=<your-token>\n```\n\n"
      "```bash\naccelerate launch --config_file recipes/cp.yaml scripts/sft.py --config recipes/sft.yaml\n```\n\n"
      "```bash\necho \"unclosed\n```\n\n"
      "```bash\nCFG=recipes/a.yaml\n```\n\n"
      "```bash\ntorchrun --nproc_per_node 2 t.py --config $CFG\n```\n";
  auto facts = markdown_session(md);
  const CommandFact* a = find_launch(facts, 0);
  REQUIRE(a);
  CHECK(words(*a) == std::vector<std::string>{"accelerate", "launch", "--config_file", "recipes/cp.yaml",
                                              "scripts/sft.py", "--config", "recipes/sft.yaml"});
  CHECK(a->span.start.line == 7);
  CHECK(a->cwd_known);  // the broken block names no `cd`
  const CommandFact* t = find_launch(facts, 1);
  REQUIRE(t);
  CHECK(t->span.start.line == 19);
  CHECK(words(*t).back() == "recipes/a.yaml");  // variables carry over from an earlier block
}

TEST_CASE("Markdown: a variable a broken block may set is unknown after it", "[markdown]") {
  const std::string md =
      "```bash\nCFG=a.yaml\n```\n\n```bash\nCFG=b.yaml; echo \"$(\n```\n\n"
      "```bash\naccelerate launch s.py --config $CFG\n```\n";
  auto facts = markdown_session(md);
  const CommandFact* a = find_launch(facts);
  REQUIRE(a);
  CHECK(words(*a).back() == "?");
}

TEST_CASE("Markdown: code blocks inside an HTML comment are not code", "[markdown]") {
  const std::string md =
      "# Demo\n\n<!-- Broken, kept for reference:\n```bash\naccelerate launch --config_file cp.yaml s.py\n```\n-->\n\n"
      "<!-- one line --> text\n\n"
      "```bash\naccelerate launch --config_file ddp.yaml s.py\n```\n";
  auto doc = markdown::scan(md);
  REQUIRE(doc.blocks.size() == 1);
  CHECK(doc.blocks[0].first_line == 11);
  auto facts = markdown_session(md);
  REQUIRE(facts.commands.size() == 1);
  CHECK(words(facts.commands[0])[3] == "ddp.yaml");
}

TEST_CASE("shell: cd options, cd to $HOME, pushd and popd", "[shell]") {
  auto cwd_of = [](const std::string& script) {
    auto facts = shell::extract(script + "\naccelerate launch s.py\n", 0);
    REQUIRE(facts.commands.size() == 1);
    const auto& c = facts.commands[0];
    return c.cwd_known ? c.cwd : std::string("?");
  };
  CHECK(cwd_of("cd -P exp") == "exp");
  CHECK(cwd_of("cd -L exp") == "exp");
  CHECK(cwd_of("cd -- exp") == "exp");
  CHECK(cwd_of("cd -Pe exp") == "exp");
  CHECK(cwd_of("cd") == "?");
  CHECK(cwd_of("cd ~") == "?");
  CHECK(cwd_of("cd ~/exp") == "?");
  CHECK(cwd_of("cd -") == "?");
  CHECK(cwd_of("cd -x exp") == "?");
  CHECK(cwd_of("pushd exp") == "exp");
  CHECK(cwd_of("pushd exp\npopd").empty());
  CHECK(cwd_of("cd a\npushd b\npushd c\npopd") == "a/b");
  CHECK(cwd_of("popd") == "?");
  CHECK(cwd_of("pushd exp\n(popd)") == "exp");  // a subshell's popd is its own
  CHECK(cwd_of("pushd -n exp") == "?");
  CHECK(cwd_of("if x; then pushd exp; fi\npopd") == "?");
}

TEST_CASE("shell: $(dirname \"$0\") in a path and cd to it", "[shell]") {
  auto facts = shell::extract(
      "ROOT=\"$(dirname \"$0\")/..\"\n"
      "accelerate launch --config_file \"$ROOT/recipes/cp.yaml\" s.py\n"
      "cd \"$(dirname \"$0\")\"\n"
      "accelerate launch t.py\n"
      "cd sub\n"
      "accelerate launch u.py\n",
      0);
  REQUIRE(facts.commands.size() == 3);
  CHECK(facts.commands[0].argv[3].text == "$SCRIPT_DIR$/../recipes/cp.yaml");
  CHECK_FALSE(facts.commands[0].cwd_script_dir);
  CHECK(facts.commands[1].cwd_script_dir);
  CHECK(facts.commands[1].cwd.empty());
  CHECK(facts.commands[2].cwd_script_dir);
  CHECK(facts.commands[2].cwd == "sub");
}

TEST_CASE("shell: an unquoted expansion that is empty is no word", "[shell]") {
  auto facts = shell::extract(
      "EXTRA_ARGS=\"\"\n"
      "accelerate launch $EXTRA_ARGS --config_file cp.yaml s.py --config x.yaml\n"
      "accelerate launch --config_file \"$EXTRA_ARGS\" s.py\n"
      "accelerate launch --config_file $EXTRA_ARGS$EXTRA_ARGS \"\" s.py\n",
      0);
  REQUIRE(facts.commands.size() == 3);
  CHECK(words(facts.commands[0]) ==
        std::vector<std::string>{"accelerate", "launch", "--config_file", "cp.yaml", "s.py", "--config", "x.yaml"});
  CHECK(words(facts.commands[1]) == std::vector<std::string>{"accelerate", "launch", "--config_file", "", "s.py"});
  CHECK(words(facts.commands[2]) == std::vector<std::string>{"accelerate", "launch", "--config_file", "", "s.py"});
  auto l = parse_launch(facts.commands[0], Knowledge::get());
  REQUIRE(l);
  REQUIRE(l->script);
  CHECK(l->script->text == "s.py");
}

TEST_CASE("Slurm: --gres takes the count of its gpu entry", "[shell][slurm]") {
  auto gpus = [](const std::string& header) {
    for (const auto& v : shell::sbatch_variables("#!/bin/bash\n" + header + "\n"))
      if (v.name == "SLURM_GPUS_ON_NODE") return v.value;
    return std::string("?");
  };
  CHECK(gpus("#SBATCH --gres=gpu:8,lscratch:100") == "8");
  CHECK(gpus("#SBATCH --gres=lscratch:100,gpu:a100:4") == "4");
  CHECK(gpus("#SBATCH --gres=gpu:8") == "8");
  CHECK(gpus("#SBATCH --gres=gpu") == "?");
  CHECK(gpus("#SBATCH --gres=gpu:a100") == "?");
  CHECK(gpus("#SBATCH --gres=gpu:a100:2,gpu:v100:2") == "?");
  CHECK(gpus("#SBATCH --gres=lscratch:100") == "?");
}

TEST_CASE("Makefile: expansion work is bounded", "[make]") {
  std::string mk;
  for (int k = 0; k < 24; ++k)
    mk += "V" + std::to_string(k) + " = $(V" + std::to_string(k + 1) + ") $(V" + std::to_string(k + 1) + ") $(V" +
          std::to_string(k + 1) + ") $(V" + std::to_string(k + 1) + ")\n";
  mk +=
      "V24 = x\ntrain:\n\taccelerate launch --config_file $(V0) s.py\n\taccelerate launch --config_file $(V23) s.py\n";
  auto facts = make::extract(mk, 0);  // returns (V0 alone would be 4^24 bytes)
  REQUIRE(facts.commands.size() == 2);
  CHECK(words(facts.commands[0])[3] == "?");
  CHECK(words(facts.commands[1]) ==
        std::vector<std::string>{"accelerate", "launch", "--config_file", "x", "x", "x", "x", "s.py"});
  bool v0_unknown = false;
  for (const auto& v : make::variables(mk)) v0_unknown = v0_unknown || (v.name == "V0" && !v.known);
  CHECK(v0_unknown);
}

TEST_CASE("Makefile: variables expand as make expands them", "[make]") {
  const std::string mk =
      "ACCEL-CONFIG = recipes/cp.yaml\n"
      "ACC = recipes/cp.yaml\n"
      "NPROC = 4\n"
      "export EXPORTED = 2\n"
      "train:\n"
      "\taccelerate launch --config_file $(ACCEL-CONFIG) s.py\n"
      "\taccelerate launch --config_file '$(ACC)' --num_processes $$NPROC s.py\n"
      "\taccelerate launch --num_processes $$EXPORTED --config_file ${ACC} s.py\n";
  auto facts = make::extract(mk, 0);
  REQUIRE(facts.commands.size() == 3);
  CHECK(words(facts.commands[0])[3] == "recipes/cp.yaml");
  CHECK(words(facts.commands[1]) == std::vector<std::string>{"accelerate", "launch", "--config_file", "recipes/cp.yaml",
                                                             "--num_processes", "?", "s.py"});
  CHECK(words(facts.commands[2])[3] == "2");
  CHECK(words(facts.commands[2])[5] == "recipes/cp.yaml");
  // The words of a reference point at the reference.
  const Word& w = facts.commands[0].argv[3];
  CHECK(w.span.start.line == 5);
  CHECK(mk.substr(w.span.begin, w.span.end - w.span.begin) == "$(ACCEL-CONFIG)");
}

TEST_CASE("Makefile: target-specific variables", "[make]") {
  const std::string mk =
      "ACC = recipes/cp.yaml\n"
      "train: ACC = recipes/ddp.yaml\n"
      "train:\n"
      "\taccelerate launch --config_file $(ACC) s.py\n"
      "other:\n"
      "\taccelerate launch --config_file $(ACC) s.py\n"
      "all: prep\n"
      "all: ACC = recipes/fsdp.yaml\n"
      "prep:\n"
      "\taccelerate launch --config_file $(ACC) s.py\n";
  auto facts = make::extract(mk, 0);
  REQUIRE(facts.commands.size() == 3);
  CHECK(words(facts.commands[0])[3] == "recipes/ddp.yaml");
  CHECK(words(facts.commands[1])[3] == "recipes/cp.yaml");
  CHECK(words(facts.commands[2])[3] == "?");  // prep may run as all's prerequisite
}

TEST_CASE("Makefile: a target-specific value reaches prerequisites past 10,000 targets", "[make]") {
  std::string mk = "ACC = recipes/cp.yaml\nall: t0\nall: ACC = recipes/ddp.yaml\n";
  for (int k = 0; k < 10005; ++k) mk += "t" + std::to_string(k) + ": t" + std::to_string(k + 1) + "\n";
  mk += "t10005: prep\nprep:\n\taccelerate launch --config_file $(ACC) s.py\n";
  auto facts = make::extract(mk, 0);
  REQUIRE(facts.commands.size() == 1);
  CHECK(words(facts.commands[0])[3] == "?");  // too many to follow: unknown, not the global value
}

TEST_CASE("Makefile: .ONESHELL makes a recipe one shell", "[make]") {
  const std::string one =
      ".ONESHELL:\n"
      "train:\n"
      "\tcd exp\n"
      "\t@accelerate launch --config_file recipes/cp.yaml s.py\n";
  auto facts = make::extract(one, 0);
  REQUIRE(facts.commands.size() == 1);
  CHECK(facts.commands[0].cwd == "exp");
  CHECK(facts.commands[0].span.start.line == 3);
  auto apart = make::extract(one.substr(11), 0);
  REQUIRE(apart.commands.size() == 1);
  CHECK(apart.commands[0].cwd.empty());
}

TEST_CASE("accelerate launch -m trl.scripts.sft is the trl sft command", "[launch]") {
  auto facts = shell::extract(
      "accelerate launch --config_file cp.yaml -m trl.scripts.sft --config x.yaml\n"
      "python -m trl.scripts.dpo --config y.yaml\n"
      "accelerate launch -m trl.scripts.nothing --config z.yaml\n",
      0);
  REQUIRE(facts.commands.size() == 3);
  auto a = parse_launch(facts.commands[0], Knowledge::get());
  REQUIRE(a);
  CHECK(a->launcher == Launcher::Accelerate);
  CHECK(a->trl_command == "sft");
  auto b = parse_launch(facts.commands[1], Knowledge::get());
  REQUIRE(b);
  CHECK(b->trl_command == "dpo");
  auto c = parse_launch(facts.commands[2], Knowledge::get());
  REQUIRE(c);
  CHECK(c->trl_command.empty());
}
