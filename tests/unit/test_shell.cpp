#include <catch2/catch.hpp>

#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/link/launch.hpp"
#include "analyzer/shell/shell_extractor.hpp"
#include "analyzer/shell/shell_words.hpp"

using namespace trl;

namespace {
std::vector<shell::RawWord> split(std::string_view s) {
  return shell::split_words(s, [](std::string_view name) -> std::optional<shell::VarValue> {
    if (name == "CFG") return shell::VarValue{"recipes/a.yaml", true};
    if (name == "EMPTY") return shell::VarValue{"", true};
    return std::nullopt;
  });
}

std::optional<LaunchCommand> launch_of(const std::string& script) {
  auto facts = shell::extract(script, 0);
  REQUIRE(facts.commands.size() == 1);
  return parse_launch(facts.commands[0], Knowledge::get());
}
}  // namespace

TEST_CASE("shell words: quotes, escapes, variables and defaults", "[shell]") {
  auto w = split("a 'b c' \"d $CFG\" e\\ f ${CFG} ${MISSING:-x.yaml} ${EMPTY:-y} $MISSING $(date)");
  REQUIRE(w.size() == 9);
  CHECK(w[1].text == "b c");
  CHECK(w[2].text == "d recipes/a.yaml");
  CHECK(w[3].text == "e f");
  CHECK(w[4].text == "recipes/a.yaml");
  CHECK(w[5].text == "x.yaml");
  CHECK(w[6].text == "y");
  CHECK_FALSE(w[7].known);
  CHECK_FALSE(w[8].known);
}

TEST_CASE("line continuations join one command; comments end it", "[shell]") {
  auto w = split("accelerate launch \\\n  --config_file x.yaml \\\n  train.py # comment");
  REQUIRE(w.size() == 5);
  CHECK(w[4].text == "train.py");
}

TEST_CASE("variables assigned earlier expand; exported ones reach the command's env", "[shell]") {
  auto facts = shell::extract(
      "CONFIG=recipes/$MODEL/config.yaml\nMODEL=qwen\nC2=recipes/${MODEL}/config_$MODEL.yaml\n"
      "export PARALLELISM_CONFIG_CP_SIZE=2\n"
      "ACCELERATE_LOG_LEVEL=info exec accelerate launch train.py --config $C2\n",
      0);
  REQUIRE(facts.commands.size() == 1);
  const auto& c = facts.commands[0];
  REQUIRE(c.argv.size() == 5);
  CHECK(c.argv[0].text == "accelerate");
  CHECK(c.argv[4].text == "recipes/qwen/config_qwen.yaml");
  bool cp = false, log = false;
  for (const auto& e : c.env) {
    cp = cp || (e.name == "PARALLELISM_CONFIG_CP_SIZE" && e.value.text == "2");
    log = log || e.name == "ACCELERATE_LOG_LEVEL";
  }
  CHECK(cp);
  CHECK(log);
}

TEST_CASE("a variable set differently inside a branch becomes unknown", "[shell]") {
  auto facts = shell::extract("CFG=a.yaml\nif [ -n \"$X\" ]; then CFG=b.yaml; fi\npython train.py --config $CFG\n", 0);
  REQUIRE(facts.commands.size() == 1);
  CHECK_FALSE(facts.commands[0].argv[3].known);
}

TEST_CASE("cd changes the folder later commands run in", "[shell]") {
  auto facts = shell::extract("cd \"$(dirname \"$0\")\"\ncd src\npython train.py\n", 0);
  REQUIRE(facts.commands.size() == 1);
  CHECK(facts.commands[0].cwd == "src");
  CHECK(facts.commands[0].cwd_known);
}

TEST_CASE("commands that are not launches are ignored", "[shell]") {
  auto facts = shell::extract("echo accelerate launch x.py\npip install trl\nls | grep py\n", 0);
  CHECK(facts.commands.empty());
}

TEST_CASE("accelerate launch options, script and script arguments", "[launch]") {
  auto l = launch_of(
      "accelerate launch --config_file a.yaml --num_processes=4 --use_fsdp --mixed-precision bf16 train.py --config "
      "c.yaml --packing\n");
  REQUIRE(l);
  CHECK(l->launcher == Launcher::Accelerate);
  REQUIRE(l->option("config_file"));
  CHECK(l->option("config_file")->value->text == "a.yaml");
  CHECK(l->option("num_processes")->value->text == "4");
  CHECK(l->option("use_fsdp"));
  CHECK_FALSE(l->option("use_fsdp")->value);
  CHECK(l->option("mixed_precision")->value->text == "bf16");
  CHECK(l->script->text == "train.py");
  REQUIRE(l->args.size() == 3);
}

TEST_CASE("torchrun, python -m, and python -m accelerate.commands.launch", "[launch]") {
  auto t = launch_of("torchrun --nproc_per_node 8 --standalone train.py --x 1\n");
  CHECK(t->launcher == Launcher::Torchrun);
  CHECK(t->script->text == "train.py");
  auto m = launch_of("python -u -m pkg.train --x 1\n");
  CHECK(m->launcher == Launcher::Python);
  CHECK(m->module);
  CHECK(m->script->text == "pkg.train");
  auto a = launch_of("python -m accelerate.commands.launch --num_processes 2 train.py\n");
  CHECK(a->launcher == Launcher::Accelerate);
  CHECK(a->script->text == "train.py");
  CHECK_FALSE(launch_of("python -c 'print(1)'\n"));
  CHECK_FALSE(launch_of("accelerate config\n"));
}

TEST_CASE("torchrun and deepspeed options: which take a value, in both spellings", "[launch]") {
  // Options without a value must not swallow the script; options with one must.
  const std::pair<const char*, const char*> cases[] = {
      {"torchrun --virtual-local-rank --nproc-per-node 2 train.py --x 1\n", "train.py"},
      {"torchrun --run_path --no-python --standalone /abs/train.py\n", "/abs/train.py"},
      {"torchrun --tee 3 --redirects 3 --log-dir logs train.py\n", "train.py"},
      {"python -m torch.distributed.run --run-path --nproc_per_node=2 /abs/train.py\n", "/abs/train.py"},
      {"python -m torch.distributed.run --virtual_local_rank train.py\n", "train.py"},
      {"python -m torch.distributed.launch --use-env --nproc_per_node 2 train.py\n", "train.py"},
      {"deepspeed --autotuning run train.py --deepspeed ds.json\n", "train.py"},
      {"deepspeed --enable_each_rank_log logs --save_pid train.py\n", "train.py"},
      {"deepspeed --no_ssh --node_rank 0 --num_gpus 8 train.py\n", "train.py"},
      {"deepspeed --bind_cores_to_rank --bind_core_list 0-7 train.py\n", "train.py"},
  };
  for (const auto& [line, script] : cases) {
    INFO(line);
    auto l = launch_of(line);
    REQUIRE(l);
    REQUIRE(l->script);
    CHECK(l->script->text == script);
  }
  auto d = launch_of("deepspeed --autotuning tune train.py\n");
  REQUIRE(d);
  REQUIRE(d->option("autotuning"));
  REQUIRE(d->option("autotuning")->value);
  CHECK(d->option("autotuning")->value->text == "tune");
}

TEST_CASE("trl CLI: dataclass flags go to the script, accelerate flags to the launcher", "[launch]") {
  auto l = launch_of("trl sft --config sft.yaml --packing --num_processes 4 --accelerate_config zero2\n");
  REQUIRE(l);
  CHECK(l->launcher == Launcher::Trl);
  CHECK(l->trl_command == "sft");
  CHECK(l->option("num_processes")->value->text == "4");
  CHECK(l->option("accelerate_config")->value->text == "zero2");
  REQUIRE(l->args.size() == 3);
  CHECK(l->args[2].text == "--packing");
  CHECK_FALSE(launch_of("trl env\n"));
}
