// Launch commands from every kind of source: bash -c / eval / assembled variables, #SBATCH,
// Makefile recipes, Markdown blocks, notebooks.
#include <catch2/catch.hpp>

#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/link/launch.hpp"
#include "analyzer/make/makefile_extractor.hpp"
#include "analyzer/markdown/markdown_extractor.hpp"
#include "analyzer/notebook/notebook_extractor.hpp"
#include "analyzer/shell/shell_extractor.hpp"
#include "analyzer/shell/shell_words.hpp"

using namespace trl;

namespace {
std::vector<std::string> argv_of(const CommandFact& c) {
  std::vector<std::string> out;
  for (const auto& w : c.argv) out.push_back(w.known ? w.text : "?");
  return out;
}
std::string line(std::string_view text, std::uint32_t l) {
  std::size_t pos = 0;
  for (std::uint32_t k = 0; k < l; ++k) pos = text.find('\n', pos) + 1;
  return std::string(text.substr(pos, text.find('\n', pos) - pos));
}
}  // namespace

TEST_CASE("bash -c \"$LAUNCHER $CMD\" keeps the known words around unknown ones", "[shell][launch]") {
  const std::string script =
      "N=$(nproc)\n"
      "export CMD=\"train.py --config a.yaml\"\n"
      "LAUNCHER=\"ACCELERATE_LOG_LEVEL=info accelerate launch --num_processes $N --config_file cp.yaml\"\n"
      "srun --nodes=1 bash -c \"$LAUNCHER $CMD\" 2>&1\n";
  auto facts = shell::extract(script, 0);
  REQUIRE(facts.commands.size() == 1);
  const auto& c = facts.commands[0];
  CHECK(argv_of(c) == std::vector<std::string>{"accelerate", "launch", "--num_processes", "?", "--config_file",
                                               "cp.yaml", "train.py", "--config", "a.yaml"});
  CHECK(c.span.start.line == 3);
  bool env = false;
  for (const auto& e : c.env) env = env || (e.name == "ACCELERATE_LOG_LEVEL" && e.value.text == "info");
  CHECK(env);
  auto l = parse_launch(c, Knowledge::get());
  REQUIRE(l);
  CHECK(l->script->text == "train.py");
}

TEST_CASE("eval, unquoted $LAUNCHER and python -m accelerate.commands.launch", "[shell][launch]") {
  auto facts = shell::extract(
      "L='accelerate launch --config_file z.yaml'\n"
      "eval \"$L s.py\"\n"
      "$L t.py\n"
      "python -m accelerate.commands.launch --num_processes 2 u.py\n",
      0);
  REQUIRE(facts.commands.size() == 3);
  CHECK(argv_of(facts.commands[0]).back() == "s.py");
  CHECK(argv_of(facts.commands[1]).back() == "t.py");
  auto l = parse_launch(facts.commands[2], Knowledge::get());
  REQUIRE(l);
  CHECK(l->launcher == Launcher::Accelerate);
  CHECK(l->script->text == "u.py");
}

TEST_CASE("a quoted argument with blanks is not split", "[shell]") {
  auto facts = shell::extract("R=\"my run\"\naccelerate launch t.py --run_name \"$R\"\n", 0);
  REQUIRE(facts.commands.size() == 1);
  CHECK(argv_of(facts.commands[0]).back() == "my run");
}

TEST_CASE("#SBATCH header and arithmetic give the world size", "[shell][slurm]") {
  auto facts = shell::extract(
      "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gpus-per-node=h100:8\necho hi\n#SBATCH --nodes=9\n"
      "W=$(($SLURM_NNODES * $SLURM_GPUS_PER_NODE))\naccelerate launch --num_processes $W t.py\n",
      0);
  REQUIRE(facts.commands.size() == 1);
  CHECK(argv_of(facts.commands[0])[3] == "16");  // the directive after `echo` is ignored
  auto none = shell::extract("N=$SLURM_NNODES\naccelerate launch --num_machines $N t.py\n", 0);
  CHECK(argv_of(none.commands[0])[3] == "?");
}

TEST_CASE("arithmetic over unknown values stays unknown", "[shell]") {
  auto lookup = [](std::string_view n) -> std::optional<shell::VarValue> {
    if (n == "A") return shell::VarValue{"3", true};
    return std::nullopt;
  };
  CHECK(shell::eval_arithmetic("A * (2 + 1) - 1", lookup) == 8);
  CHECK_FALSE(shell::eval_arithmetic("A * B", lookup));
  CHECK_FALSE(shell::eval_arithmetic("A / 0", lookup));
  CHECK_FALSE(shell::eval_arithmetic("A ** 2", lookup));
}

TEST_CASE("files written by the script are recorded", "[shell]") {
  auto facts = shell::extract("cat > c.yaml <<EOF\na: 1\nEOF\nwget -O s.py http://x\ncp a b.yaml\necho x 2> log\n", 0);
  std::vector<std::string> paths;
  for (const auto& c : facts.created) paths.push_back(c.path);
  CHECK(paths == std::vector<std::string>{"c.yaml", "s.py", "b.yaml", "log"});  // a log is created too
}

TEST_CASE("Makefile: variables, prefixes, continuations, $$", "[make]") {
  const std::string mk =
      "CFG ?= recipes/a.yaml\n"
      "ACC := cp.yaml\n"
      "L = accelerate launch --config_file $(ACC)\n"
      "ifeq ($(X),1)\nACC2 = other.yaml\nendif\n"
      "export ACCELERATE_LOG_LEVEL = info\n"
      "train:\n"
      "\t@echo $(CFG)\n"
      "\t-$(L) \\\n\t\ttrain.py --config $(CFG) --out $$HOME --other $(ACC2)\n"
      "lint:\n\truff check .\n";
  auto vars = make::variables(mk);
  bool acc2_unknown = false;
  for (const auto& v : vars) acc2_unknown = acc2_unknown || (v.name == "ACC2" && !v.known);
  CHECK(acc2_unknown);
  auto facts = make::extract(mk, 0);
  REQUIRE(facts.commands.size() == 1);
  const auto& c = facts.commands[0];
  CHECK(argv_of(c) == std::vector<std::string>{"accelerate", "launch", "--config_file", "cp.yaml", "train.py",
                                               "--config", "recipes/a.yaml", "--out", "?", "--other", "?"});
  CHECK(c.span.start.line == 9);
  bool env = false;
  for (const auto& e : c.env) env = env || e.name == "ACCELERATE_LOG_LEVEL";
  CHECK(env);
}

TEST_CASE("Markdown: fenced and indented blocks keep their lines", "[markdown]") {
  const std::string md =
      "# T\n\n## A\n\n```console\n$ accelerate launch x.py\nsome output\n```\n\n"
      "```python\nfrom trl import SFTConfig\n```\n\n  ```yaml\n  a: 1\n  ```\n\n"
      "    torchrun --nproc_per_node 2 y.py\n\n- item\n\n    not code in a list\n";
  auto doc = markdown::scan(md);
  REQUIRE(doc.blocks.size() == 4);
  CHECK(doc.blocks[0].lang == markdown::BlockLang::Shell);
  CHECK(doc.blocks[1].lang == markdown::BlockLang::Python);
  CHECK(doc.blocks[2].lang == markdown::BlockLang::Yaml);
  CHECK(doc.blocks[3].indented);
  CHECK(doc.shell_text.size() == md.size());
  CHECK(line(doc.shell_text, 5) == "  accelerate launch x.py");
  CHECK(line(doc.shell_text, 6).find_first_not_of(' ') == std::string::npos);  // output blanked
  CHECK(line(doc.python_text, 10) == "from trl import SFTConfig");
  CHECK(line(doc.yaml_text, 14).rfind("a: 1", 0) == 0);  // dedented
  CHECK(line(doc.yaml_text, 13).rfind("---", 0) == 0);
  CHECK(line(doc.shell_text, 21).find_first_not_of(' ') == std::string::npos);
  auto facts = shell::extract(doc.shell_text, 0);
  REQUIRE(facts.commands.size() == 2);
  CHECK(facts.commands[1].span.start.line == 17);
  auto sections = markdown::enclosing_sections({{1, 0}, {2, 2}}, 5, 24);
  REQUIRE(sections.size() == 1);  // the H1 page title is not a section of its subsections
  CHECK(sections[0] == std::make_pair(2u, 24u));
  auto nested = markdown::enclosing_sections({{1, 0}, {2, 2}, {3, 4}, {3, 8}, {2, 12}}, 9, 20);
  REQUIRE(nested.size() == 2);
  CHECK(nested[0] == std::make_pair(8u, 12u));
  CHECK(nested[1] == std::make_pair(2u, 12u));
  CHECK(markdown::enclosing_sections({{1, 0}}, 5, 9) == std::vector<std::pair<std::uint32_t, std::uint32_t>>{{0, 9}});
}

TEST_CASE("notebook: ! lines, %%bash cells and Python cells on their .ipynb lines", "[notebook]") {
  const std::string nb =
      "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"source\": [\n"
      "    \"x = 1\\n\",\n"
      "    \"!accelerate launch --config_file {cfg} t.py\\n\",\n"
      "    \"!torchrun --nproc_per_node 2 \\\\\\n\",\n"
      "    \"!  u.py\"\n   ]\n  },\n"
      "  {\n   \"cell_type\": \"code\",\n   \"source\": \"%%bash\\ndeepspeed v.py\\n\"\n  }\n ],\n \"nbformat\": "
      "4\n}\n";
  auto r = notebook::scan(nb);
  REQUIRE(r.valid);
  CHECK(r.cells_skipped == 1);  // the second cell's source is one string holding several lines
  CHECK(r.shell_text.size() == nb.size());
  CHECK(line(r.python_text, 5).rfind("x = 1", 0) == 0);
  auto facts = shell::extract(r.shell_text, 0);
  REQUIRE(facts.commands.size() == 2);
  CHECK(argv_of(facts.commands[0])[3] == "?");  // {cfg} is a Python value
  CHECK(facts.commands[0].span.start.line == 6);
  CHECK(argv_of(facts.commands[1]).back() == "u.py");
  CHECK_FALSE(notebook::scan("{not json").valid);
  CHECK_FALSE(notebook::scan("[1, 2]").valid);
}
