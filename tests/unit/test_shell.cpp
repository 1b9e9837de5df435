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

namespace {
// The last argument of the one launch in `script`: `python train.py --n VALUE`.
trl::Word value_after(const std::string& script, const shell::ExtractOptions& options = {}) {
  auto facts = shell::extract(script, 0, options);
  REQUIRE(facts.commands.size() == 1);
  REQUIRE(facts.commands[0].argv.size() == 4);
  return facts.commands[0].argv[3];
}
}  // namespace

TEST_CASE("what the script runs in this shell makes its variables unknown", "[shell]") {
  const std::string launch = "python train.py --n $N\n";
  const std::string defaulted = "python train.py --n ${N:-7}\n";
  SECTION("nothing in between: the value assigned") {
    CHECK(value_after("N=7\n" + launch).text == "7");
  }
  SECTION("source and . of a project file (a relative path, or one we cannot read)") {
    CHECK_FALSE(value_after("N=7\nsource ./cluster_env.sh\n" + launch).known);
    CHECK_FALSE(value_after("N=7\n. \"$1\"\n" + launch).known);
    CHECK_FALSE(value_after("N=7\nsource \"$(dirname \"$0\")/env.sh\"\n" + launch).known);
    // A variable the script never assigned may now be set: its default is no longer certain.
    CHECK_FALSE(value_after("source env.sh\n" + defaulted).known);
    CHECK(value_after(defaulted).text == "7");
  }
  SECTION("source of a file outside the project is the environment, which sets none of them") {
    CHECK(value_after("N=7\nsource ~/.bashrc\n" + launch).text == "7");
    CHECK(value_after("N=7\nsource \"$HOME/.profile\"\n" + launch).text == "7");
    CHECK(value_after("N=7\n. /etc/profile.d/modules.sh\n" + launch).text == "7");
    CHECK(value_after("N=7\nsource \"$(conda info --base)/etc/profile.d/conda.sh\"\n" + launch).text == "7");
    CHECK(value_after("N=7\nsource activate myenv\n" + launch).text == "7");  // conda's
    CHECK(value_after("source ~/.bashrc\n" + defaulted).text == "7");
    // Only `$HOME` itself, and not what the script feeds in through /dev or /proc.
    CHECK_FALSE(value_after("N=7\nsource \"$HOME_DIR/env.sh\"\n" + launch).known);
    CHECK_FALSE(value_after("N=7\nsource \"$CONDA_PREFIX_ENV_FILE\"\n" + launch).known);
    CHECK_FALSE(value_after("N=7\nsource /dev/stdin <<< \"$(python gen_env.py)\"\n" + launch).known);
    // `builtin` and `command` in front of the builtin.
    CHECK_FALSE(value_after("N=7\nbuiltin source ./env.sh\n" + launch).known);
    CHECK_FALSE(value_after("N=7\ncommand . ./env.sh\n" + launch).known);
  }
  SECTION("a virtual environment's activation sets its own variables only") {
    CHECK(value_after("N=7\nsource venv/bin/activate\n" + launch).text == "7");
    CHECK(value_after("N=7\n. openr1/bin/activate\n" + launch).text == "7");
    CHECK(value_after("N=7\nsource bin/activate\n" + launch).text == "7");
    CHECK(value_after("N=7\nsource \"$HOME/envs/trl/bin/activate\"\n" + launch).text == "7");
    CHECK_FALSE(value_after("PATH=/x\nsource venv/bin/activate\npython train.py --n $PATH\n").known);
  }
  SECTION("eval: of unknown text, anything but a tool's own set-up; of known text, what it assigns") {
    CHECK_FALSE(value_after("N=7\neval \"$(python make_env.py)\"\n" + launch).known);
    CHECK_FALSE(value_after("N=7\neval \"$SETUP\"\n" + launch).known);
    CHECK(value_after("N=7\neval \"$(conda shell.bash hook)\"\n" + launch).text == "7");
    CHECK(value_after("N=7\neval `ssh-agent -s`\n" + launch).text == "7");
    CHECK(value_after("N=7\neval \"$(pyenv init -)\"\n" + launch).text == "7");
    // Not a tool's own set-up: a runner, direnv (the project's .envrc), or more than the hook.
    CHECK_FALSE(value_after("N=7\neval \"$(uv run python gen.py)\"\n" + launch).known);
    CHECK_FALSE(value_after("N=7\neval \"$(direnv export bash)\"\n" + launch).known);
    CHECK_FALSE(value_after("N=7\neval \"$(conda shell.bash hook)$(python gen.py)\"\n" + launch).known);
    CHECK_FALSE(value_after("N=7\neval \"$(conda run python gen.py)\"\n" + launch).known);
    CHECK(value_after("N=7\neval 'N=8'\n" + launch).text == "8");
    CHECK(value_after("N=7\neval 'M=8'\n" + launch).text == "7");
  }
  SECTION("builtins that assign the names they are given") {
    CHECK_FALSE(value_after("N=7\nread N < n.txt\n" + launch).known);
    CHECK_FALSE(value_after("N=7\nread -r -p 'gpus? ' N\n" + launch).known);
    CHECK_FALSE(value_after("N=7\nmapfile -t N < f\n" + launch).known);
    CHECK_FALSE(value_after("N=7\nlet N=N+1\n" + launch).known);
    CHECK(value_after("N=7\nlet \"T = N*2\"\n" + launch).text == "7");  // read, not assigned
    CHECK_FALSE(value_after("N=7\n(( N++ ))\n" + launch).known);
    CHECK_FALSE(value_after("N=7\n(( N = 8 ))\n" + launch).known);
    CHECK_FALSE(value_after("N=7\n((N+=1))\n" + launch).known);
    CHECK_FALSE(value_after("N=7\n(( --N ))\n" + launch).known);
    CHECK(value_after("N=7\nif (( N == 8 )); then :; fi\n" + launch).text == "7");
    CHECK_FALSE(value_after("N=7\n: $(( N = 8 ))\n" + launch).known);
    CHECK_FALSE(value_after("N=7\nX=$((N++))\n" + launch).known);
    CHECK(value_after("N=7\nX=$((N * 2))\n" + launch).text == "7");
    // Overflowing arithmetic is unknown, not a crash (LLONG_MIN / -1 traps: SIGFPE).
    CHECK_FALSE(value_after("N=$(( 2147483648 * 4294967296 / -1 ))\n" + launch).known);
    CHECK_FALSE(value_after("N=$(( 9223372036854775807 + 1 ))\n" + launch).known);
    CHECK_FALSE(value_after("N=$(( -(4611686018427387904 * 2) % -1 ))\n" + launch).known);
    CHECK(value_after("N=$(( 6 / -1 ))\n" + launch).text == "-6");
    CHECK_FALSE(value_after("N=7\nprintf -v N '%d' 8\n" + launch).known);
    CHECK_FALSE(value_after("N=7\nprintf -v \"$NAME\" '%d' 8\n" + launch).known);
    CHECK_FALSE(value_after("N=7\nwhile getopts n: N; do :; done\n" + launch).known);
    CHECK_FALSE(value_after("N=7\nexport $(grep -v '^#' .env | xargs)\n" + launch).known);
    CHECK(value_after("N=7\nread M < m.txt\n" + launch).text == "7");
    CHECK(value_after("N=5\nunset N\n" + defaulted).text == "7");
    CHECK(value_after("N=5\nunset -v N\n" + defaulted).text == "7");
    CHECK(value_after("N=5\nunset -f N\n" + defaulted).text == "5");  // a function of that name
    // On one path only: neither the value nor unset.
    CHECK_FALSE(value_after("N=5\nif [ -n \"$S\" ]; then unset N; fi\n" + defaulted).known);
  }
  SECTION("${N:=x} assigns N when it is unset") {
    CHECK(value_after(": \"${N:=8}\"\n" + defaulted).text == "8");
    CHECK(value_after("N=\n: ${N:=8}\n" + launch).text == "8");
    // set, though empty: no colon, no default (quoted: an unquoted empty expansion is no word)
    CHECK(value_after("N=\n: ${N=8}\npython train.py --n \"$N\"\n").text.empty());
    CHECK(value_after("N=5\n: ${N:=8}\n" + launch).text == "5");
    CHECK(value_after("echo '${N:=8}'\n" + defaulted).text == "7");  // single quotes: no expansion
    CHECK(value_after("M=${N:=8}\n" + launch).text == "8");
  }
  SECTION("a function assigns when it is called, not where it is defined") {
    const std::string define = "set_n() { N=8; }\n";
    CHECK(value_after(define + "N=7\n" + launch).text == "7");
    CHECK_FALSE(value_after(define + "N=7\nset_n\n" + launch).known);
    CHECK_FALSE(value_after("function load { source cfg.sh; }\nN=7\nload\n" + launch).known);
    CHECK(value_after("log() { echo \"$@\"; }\nN=7\nlog start\n" + launch).text == "7");
    // Recorded by what the body writes, not by comparing values where it is defined.
    CHECK_FALSE(value_after("N=$(nvidia-smi -L | wc -l)\nf() { N=8; }\nN=7\nf\n" + launch).known);
    CHECK_FALSE(value_after("N=7\nf() { N=7; }\nN=8\nf\n" + launch).known);
    CHECK_FALSE(value_after("source ./common.sh\nload() { source ./cluster.sh; }\nN=7\nload\n" + launch).known);
    // What a called function writes is unknown after it, an unset too (it may assign).
    CHECK_FALSE(value_after("N=5\nclear() { unset N; }\nclear\n" + defaulted).known);
    CHECK(value_after("f() { local X=1; g() { N=8; }; }\nN=7\nf\n" + launch).text == "7");  // g not called
    // A definition inside a function's body or a subshell does not replace the outer one.
    const std::string g = "g() { N=8; }\n";
    CHECK_FALSE(value_after(g + "f() { g() { :; }; }\nN=7\ng\n" + launch).known);
    CHECK_FALSE(value_after(g + "( g() { :; } )\nN=7\ng\n" + launch).known);
    CHECK_FALSE(value_after(g + "( unset -f g )\nN=7\ng\n" + launch).known);
    // A `cd` inside a called function: the folder is unknown after the call.
    auto cd = shell::extract("enter() { cd sub; }\nenter\npython train.py\n", 0);
    REQUIRE(cd.commands.size() == 1);
    CHECK_FALSE(cd.commands[0].cwd_known);
    // Its commands are read where it is defined.
    auto facts = shell::extract("N=2\nrun() { python train.py --n $N; }\nrun\n", 0);
    REQUIRE(facts.commands.size() == 1);
    CHECK(facts.commands[0].argv[3].text == "2");
  }
  SECTION("subshells and pipelines keep their assignments and folder to themselves") {
    CHECK(value_after("N=7\n(N=8)\n" + launch).text == "7");
    CHECK(value_after("N=7\necho 8 | read N\n" + launch).text == "7");
    auto facts = shell::extract("(cd sub && python train.py)\npython other.py\n", 0);
    REQUIRE(facts.commands.size() == 2);
    CHECK(facts.commands[0].cwd == "sub");
    CHECK(facts.commands[1].cwd.empty());
    // A launch piped into tee is still read.
    CHECK(shell::extract("N=2\npython train.py --n $N | tee log.txt\n", 0).commands.size() == 1);
  }
  SECTION("a Slurm allocation and a Makefile's variables stay known across source") {
    auto slurm =
        shell::extract("#!/bin/bash\n#SBATCH --nodes=2\nsource ~/.bashrc\npython train.py --n $SLURM_NNODES\n", 0);
    REQUIRE(slurm.commands.size() == 1);
    CHECK(slurm.commands[0].argv[3].text == "2");
    shell::ExtractOptions make;
    make.vars.push_back({"N", "4", true, false, true});
    CHECK(value_after("source env.sh\n" + launch, make).text == "4");
  }
  SECTION("defaults nested 25,000 deep are unknown past 32 levels, without exhausting the stack") {
    std::string deep = "N=";
    for (int i = 0; i < 25000; ++i) deep += "${N:-";
    deep += "8";
    for (int i = 0; i < 25000; ++i) deep += "}";
    CHECK_FALSE(value_after(deep + "\n" + launch).known);
    CHECK(value_after("N=${A:-${B:-${C:-8}}}\n" + launch).text == "8");
  }
  SECTION("deeply nested subshells and functions neither crash nor lose the commands") {
    std::string deep;
    for (int i = 0; i < 200; ++i) deep += "( ";
    deep += "python train.py --n 1";
    for (int i = 0; i < 200; ++i) deep += " )";
    CHECK(shell::extract(deep + "\n", 0).commands.size() == 1);
    // 20,000 nested function definitions: walked on the explicit stack (a recursion per level
    // overflowed the stack).
    std::string functions;
    for (int i = 0; i < 20000; ++i) functions += "f" + std::to_string(i) + "() {\n";
    functions += "python train.py --n 1\n";
    for (int i = 0; i < 20000; ++i) functions += "}\n";
    CHECK(shell::extract(functions, 0).commands.size() == 1);
  }
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

TEST_CASE("a launcher option whose value is unknown is still an option, for every launcher", "[shell][launch]") {
  struct Case {
    const char* script;
    Launcher launcher;
    const char* option;
  };
  const Case cases[] = {
      {"torchrun --nnodes=$NNODES --nproc_per_node=8 train.py --lr 1", Launcher::Torchrun, "nnodes"},
      {"torchrun --nproc_per_node=$GPUS --nnodes 2 train.py", Launcher::Torchrun, "nproc_per_node"},
      {"torchrun --rdzv_endpoint=$HEAD:29500 --nnodes=2 train.py", Launcher::Torchrun, "rdzv_endpoint"},
      {"python -m torch.distributed.run --nproc-per-node=${GPUS} train.py", Launcher::Torchrun, "nproc_per_node"},
      {"accelerate launch --num_processes=$N --config_file fsdp.yaml train.py", Launcher::Accelerate, "num_processes"},
      {"deepspeed --num_gpus=$G train.py --deepspeed ds.json", Launcher::Deepspeed, "num_gpus"},
  };
  for (const Case& c : cases) {
    INFO(c.script);
    auto l = launch_of(c.script);
    REQUIRE(l);
    CHECK(l->launcher == c.launcher);
    REQUIRE(l->script);
    CHECK(l->script->known);
    CHECK(l->script->text == "train.py");
    const LaunchOption* o = l->option(c.option);
    REQUIRE(o);
    REQUIRE(o->value);
    CHECK_FALSE(o->value->known);
  }
  // A known prefix, an unknown rest: the value keeps its literal part.
  auto l = launch_of("torchrun --rdzv_endpoint=$HEAD:29500 train.py");
  REQUIRE(l);
  CHECK(l->option("rdzv_endpoint")->value->text == ":29500");
  // An option whose name is not known: whether it takes the next word is not known, nor the script.
  CHECK_FALSE(launch_of("torchrun --$OPT=1 train.py"));
  CHECK_FALSE(launch_of("torchrun -$FLAGS train.py"));
  // A word that does not start with a literal dash is the script, whatever it holds.
  auto s = launch_of("torchrun --nproc_per_node=8 $SCRIPT --lr 1");
  REQUIRE(s);
  REQUIRE(s->script);
  CHECK_FALSE(s->script->known);
}
