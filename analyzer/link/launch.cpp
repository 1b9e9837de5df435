#include "analyzer/link/launch.hpp"

#include <algorithm>
#include <iterator>
#include <set>
#include <string>

#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/shell/shell_extractor.hpp"

namespace trl {

const char* to_string(Launcher l) {
  switch (l) {
    case Launcher::Accelerate: return "accelerate launch";
    case Launcher::Torchrun: return "torchrun";
    case Launcher::Deepspeed: return "deepspeed";
    case Launcher::Python: return "python";
    case Launcher::Trl: return "trl";
  }
  return "python";
}

const LaunchOption* LaunchCommand::option(std::string_view name) const {
  const LaunchOption* found = nullptr;
  for (const auto& o : options)
    if (o.name == name) found = &o;
  return found;
}

const EnvAssignment* LaunchCommand::env_var(std::string_view name) const {
  const EnvAssignment* found = nullptr;
  for (const auto& e : env)
    if (e.name == name) found = &e;
  return found;
}

std::string normalize_option_name(std::string_view token) {
  std::size_t i = 0;
  while (i < token.size() && token[i] == '-') ++i;
  std::string name(token.substr(i));
  auto eq = name.find('=');
  if (eq != std::string::npos) name.resize(eq);
  for (auto& c : name)
    if (c == '-') c = '_';
  return name;
}

namespace {

Span join(Span a, Span b) {
  a.end = b.end;
  a.stop = b.stop;
  return a;
}

// Reads launcher options until the first positional word (the script). `takes_value`
// decides whether an option without `=` consumes the next word.
template <typename TakesValue>
std::size_t read_options(const std::vector<Word>& argv, std::size_t i, LaunchCommand& out, TakesValue takes_value) {
  while (i < argv.size()) {
    const Word& w = argv[i];
    // A word whose value is unknown is still an option when it is written starting with a dash
    // (`--nnodes=$NNODES`): its name is the literal part before `=`, its value unknown.
    const bool literal_dash = w.known || (w.known_prefix >= 1 && w.known_prefix <= w.text.size());
    if (!literal_dash || w.text.empty() || w.text[0] != '-' || (w.known && w.text.size() < 2)) break;
    if (w.text == "--") {
      ++i;
      break;
    }
    LaunchOption opt;
    opt.name = normalize_option_name(w.text);
    opt.span = w.span;
    auto eq = w.text.find('=');
    if (!w.known && (eq == std::string::npos || eq >= w.known_prefix)) {
      // `--$NAME=1`, `-$X`: an option whose name is not known. Whether it takes the next word is
      // not known either, so neither is the script: not read as a launch.
      return argv.size();
    }
    if (eq != std::string::npos) {
      Word v = w;
      v.text = w.text.substr(eq + 1);
      v.known_prefix = w.known ? 0 : w.known_prefix - static_cast<std::uint32_t>(eq + 1);
      opt.value = v;
      ++i;
    } else if (takes_value(opt.name) && i + 1 < argv.size()) {
      opt.value = argv[i + 1];
      opt.span = join(w.span, argv[i + 1].span);
      i += 2;
    } else {
      ++i;
    }
    const bool module = opt.name == "m" || opt.name == "module";
    if (module) out.module = true;
    out.options.push_back(std::move(opt));
  }
  return i;
}

// The `trl <command>` CLI: everything after the sub-command goes to the script parser; options
// that are not fields of its dataclasses go to `accelerate launch`
// (trl/cli/commands: TrainingCommand.run, v1.9.0).
std::optional<LaunchCommand> parse_trl_cli(const std::vector<Word>& argv, std::size_t i, LaunchCommand out,
                                           const Knowledge& knowledge) {
  auto accelerate_takes_value = [&](const std::string& name) {
    const LaunchFlag* f = knowledge.launch_flag(name);
    return f ? f->takes_value : true;
  };
  if (i >= argv.size() || !argv[i].known) return std::nullopt;
  const std::vector<const ClassInfo*> classes = knowledge.trl_cli_classes(argv[i].text);
  if (classes.empty()) return std::nullopt;  // not a training command (env, vllm-serve, ...)
  out.launcher = Launcher::Trl;
  out.trl_command = argv[i].text;
  auto is_field = [&](const std::string& name) {
    for (auto* c : classes)
      if (knowledge.field(*c, name)) return true;
    return false;
  };
  for (std::size_t k = i + 1; k < argv.size(); ++k) {
    const Word& w = argv[k];
    if (w.known && w.text.rfind("--", 0) == 0) {
      std::string name = normalize_option_name(w.text);
      if (name == "accelerate_config" || (knowledge.launch_flag(name) && !is_field(name) && name != "config")) {
        LaunchOption opt;
        opt.name = name;
        opt.span = w.span;
        auto eq = w.text.find('=');
        if (eq != std::string::npos) {
          Word v = w;
          v.text = w.text.substr(eq + 1);
          opt.value = v;
        } else if ((name == "accelerate_config" || accelerate_takes_value(name)) && k + 1 < argv.size()) {
          opt.value = argv[++k];
          opt.span = join(w.span, argv[k].span);
        }
        out.options.push_back(std::move(opt));
        continue;
      }
    }
    out.args.push_back(w);
  }
  return out;
}

// The options of torchrun (`python -m torch.distributed.run`) that take no value; every other
// option takes one. torch/distributed/run.py get_args_parser (pytorch/pytorch f34fa15): the
// `check_env` options --standalone, -m/--module, --no-python, --run-path and
// --virtual-local-rank. `python -m torch.distributed.launch` adds --use-env (launch.py).
// Names as normalize_option_name leaves them (dashes become underscores).
bool torchrun_takes_value(const std::string& name) {
  static const std::set<std::string, std::less<>> flags = {
      "standalone", "m", "module", "no_python", "run_path", "use_env", "virtual_local_rank"};
  return flags.count(name) == 0;
}

// The same for the `deepspeed` launcher: its store_true options in deepspeed/launcher/runner.py
// parse_args (deepspeedai/DeepSpeed 2d991ba). --autotuning (tune|run) and
// --enable_each_rank_log (a folder) take a value.
bool deepspeed_takes_value(const std::string& name) {
  static const std::set<std::string, std::less<>> flags = {"module",   "no_python",        "no_local_rank",
                                                           "no_ssh",   "no_ssh_check",     "force_multi",
                                                           "save_pid", "elastic_training", "bind_cores_to_rank"};
  return flags.count(name) == 0;
}

// `python -m pip install ...`, `python -m pytest`: the packaging, test and development tools a
// workflow or a Makefile runs with the interpreter. They start no training run.
bool is_tool_module(std::string_view module) {
  static constexpr std::string_view kTools[] = {
      "pip",    "ensurepip",  "venv",       "virtualenv", "pipx",    "uv",        "build",      "twine",
      "wheel",  "setuptools", "pytest",     "unittest",   "doctest", "coverage",  "tox",        "nox",
      "black",  "ruff",       "isort",      "flake8",     "pylint",  "mypy",      "pre_commit", "pydoc",
      "timeit", "cProfile",   "pdb",        "http",       "json",    "ipykernel", "jupyter",    "nbconvert",
      "sphinx", "mkdocs",     "compileall", "pip_audit",  "poetry",  "hatch",     "pdm",        "site"};
  const std::string_view top = module.substr(0, module.find('.'));
  return std::find(std::begin(kTools), std::end(kTools), top) != std::end(kTools);
}

}  // namespace

std::optional<LaunchCommand> parse_launch(const CommandFact& command, const Knowledge& knowledge) {
  const auto& argv = command.argv;
  if (argv.empty() || !argv[0].known) return std::nullopt;
  LaunchCommand out;
  out.span = command.span;
  out.launcher_span = argv[0].span;
  out.env = command.env;
  out.cwd = command.cwd;
  out.cwd_known = command.cwd_known;
  out.cwd_script_dir = command.cwd_script_dir;
  std::string_view prog = shell::program_basename(argv[0].text);
  std::size_t i = 1;
  auto accelerate_takes_value = [&](const std::string& name) {
    const LaunchFlag* f = knowledge.launch_flag(name);
    return f ? f->takes_value : true;
  };
  if (prog == "accelerate" || prog == "accelerate-launch") {
    if (prog == "accelerate") {
      if (argv.size() < 2 || argv[1].text != "launch") return std::nullopt;
      i = 2;
    }
    out.launcher = Launcher::Accelerate;
    i = read_options(argv, i, out, accelerate_takes_value);
  } else if (prog == "torchrun" || prog == "deepspeed") {
    out.launcher = prog == "torchrun" ? Launcher::Torchrun : Launcher::Deepspeed;
    i = read_options(argv, i, out, prog == "torchrun" ? torchrun_takes_value : deepspeed_takes_value);
  } else if (shell::is_python_interpreter(prog)) {
    out.launcher = Launcher::Python;
    // Interpreter options: -m ends them; -c means inline code (not a launch).
    while (i < argv.size() && argv[i].known && argv[i].text.size() > 1 && argv[i].text[0] == '-') {
      const std::string& t = argv[i].text;
      if (t == "-c") return std::nullopt;
      if (t == "-m") {
        out.module = true;
        ++i;
        break;
      }
      if (t == "-W" || t == "-X" || t == "--check-hash-based-pycs")
        i += 2;
      else
        ++i;
    }
    if (out.module && i < argv.size() && argv[i].known) {
      const std::string& mod = argv[i].text;
      if (is_tool_module(mod)) return std::nullopt;
      if (mod == "accelerate.commands.launch") {
        out.launcher = Launcher::Accelerate;
        out.module = false;
        i = read_options(argv, i + 1, out, accelerate_takes_value);
      } else if (mod == "torch.distributed.run" || mod == "torch.distributed.launch") {
        out.launcher = Launcher::Torchrun;
        out.module = false;
        i = read_options(argv, i + 1, out, torchrun_takes_value);
      } else if (mod == "trl.cli" || mod == "trl.cli.main") {
        // trl/cli.py up to v0.28, trl/cli/main.py from v0.29.0, both with a `__main__` guard. There
        // is no trl/__main__.py in any release (v0.13.0 to v1.9.0): `python -m trl sft` fails.
        // (`python -m trl.cli` fails from v0.29.0, where trl/cli is a package without __main__.py:
        // still read, as the version is not known here.)
        out.module = false;
        return parse_trl_cli(argv, i + 1, std::move(out), knowledge);
      }
    }
  } else if (prog == "trl") {
    return parse_trl_cli(argv, i, std::move(out), knowledge);
  } else {
    return std::nullopt;
  }
  if (i >= argv.size()) return std::nullopt;  // `accelerate launch` with no script
  // `python setup.py develop` builds or installs the package; it trains nothing.
  if (out.launcher == Launcher::Python && !out.module && argv[i].known &&
      (argv[i].text == "setup.py" || argv[i].text.ends_with("/setup.py")))
    return std::nullopt;
  out.script = argv[i];
  out.args.assign(argv.begin() + static_cast<std::ptrdiff_t>(i) + 1, argv.end());
  // `accelerate launch -m trl.scripts.sft`: the script `trl sft` runs, with the same parser
  // (trl/cli/commands/training.py launches trl/scripts/<command>.py, v1.9.0).
  if (out.module && out.script->known && out.script->text.rfind("trl.scripts.", 0) == 0) {
    const std::string command = out.script->text.substr(12);
    if (!knowledge.trl_cli_classes(command).empty()) out.trl_command = command;
  }
  return out;
}

}  // namespace trl
