// Models of the programs a script runs, as far as they decide what runs and where: the
// launchers of a training run (accelerate, torchrun, deepspeed, python, trl), the wrappers that
// run a command given as their arguments (srun, conda run, uv run, env, ...) and their options,
// the tools whose output sets up the shell (`eval "$(conda shell.bash hook)"`), and the Slurm
// allocation an #SBATCH header asks for.
#include <algorithm>
#include <cctype>
#include <initializer_list>

#include "analyzer/shell/shell_extractor.hpp"
#include "analyzer/shell/shell_internal.hpp"
#include "analyzer/shell/shell_words.hpp"

namespace trl::shell {

namespace detail {

bool is_wrapper(std::string_view name) {
  return name == "exec" || name == "env" || name == "nohup" || name == "time" || name == "srun" || name == "nice" ||
         name == "stdbuf" || name == "sudo" || name == "mpirun" || name == "command" || name == "xargs" ||
         name == "timeout" || name == "numactl" || name == "taskset" || name == "uv" || name == "poetry" ||
         name == "pipenv" || name == "conda" || name == "mamba" || name == "micromamba";
}

bool wrapper_option_takes_value(std::string_view wrapper, std::string_view option) {
  auto in = [&](std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), option) != names.end();
  };
  if (wrapper == "conda" || wrapper == "mamba" || wrapper == "micromamba")
    return in({"-n", "--name", "-p", "--prefix", "--cwd", "-r", "--root-prefix", "--rc-file"});
  if (wrapper == "uv")
    return in({"--with",
               "--with-editable",
               "--with-requirements",
               "-p",
               "--python",
               "--project",
               "--directory",
               "--package",
               "--extra",
               "--no-extra",
               "--group",
               "--no-group",
               "--only-group",
               "--env-file",
               "--index",
               "--default-index",
               "-i",
               "--index-url",
               "--extra-index-url",
               "-f",
               "--find-links",
               "--index-strategy",
               "--keyring-provider",
               "--resolution",
               "--prerelease",
               "--fork-strategy",
               "--exclude-newer",
               "--exclude-newer-package",
               "--no-build-isolation-package",
               "-C",
               "--config-setting",
               "--config-settings-package",
               "--link-mode",
               "--refresh-package",
               "--reinstall-package",
               "-P",
               "--upgrade-package",
               "--no-binary-package",
               "--no-build-package",
               "--cache-dir",
               "--config-file",
               "--color",
               "--python-preference",
               "--allow-insecure-host",
               "--python-platform",
               "--torch-backend",
               "--no-sources-package"});
  if (wrapper == "poetry") return in({"-C", "--directory", "-P", "--project"});
  if (wrapper == "srun")
    return in({"-A",
               "--account",
               "-c",
               "--cpus-per-task",
               "-C",
               "--constraint",
               "-D",
               "--chdir",
               "-e",
               "--error",
               "-G",
               "--gpus",
               "--gres",
               "-i",
               "--input",
               "-J",
               "--job-name",
               "-L",
               "--licenses",
               "-m",
               "--distribution",
               "-n",
               "--ntasks",
               "-N",
               "--nodes",
               "-o",
               "--output",
               "-p",
               "--partition",
               "-q",
               "--qos",
               "-t",
               "--time",
               "-w",
               "--nodelist",
               "-x",
               "--exclude",
               "--mem",
               "--mpi",
               "--export",
               "--container-image",
               "--container-mounts",
               "--container-workdir",
               "--ntasks-per-node",
               "--gpus-per-node",
               "--cpu-bind",
               "--jobid",
               "--reservation"});
  if (wrapper == "mpirun")
    return in({"-n",
               "-np",
               "--np",
               "-c",
               "-H",
               "--host",
               "--hostfile",
               "-hostfile",
               "--machinefile",
               "-x",
               "--map-by",
               "--bind-to",
               "--rank-by",
               "-npernode",
               "--npernode",
               "-N",
               "--mca",
               "-mca",
               "-wdir",
               "--wdir",
               "-output-filename",
               "--output-filename"});
  if (wrapper == "sudo")
    return in({"-u", "--user",   "-g", "--group", "-D", "--chdir", "-C", "--close-from",      "-h", "--host",
               "-p", "--prompt", "-r", "--role",  "-t", "--type",  "-T", "--command-timeout", "-U", "--other-user"});
  if (wrapper == "timeout") return in({"-s", "--signal", "-k", "--kill-after"});
  if (wrapper == "exec") return option == "-a";
  if (wrapper == "nice") return in({"-n", "--adjustment"});
  if (wrapper == "stdbuf") return in({"-i", "--input", "-o", "--output", "-e", "--error"});
  if (wrapper == "numactl")
    return in(
        {"-N", "--cpunodebind", "-m", "--membind", "-C", "--physcpubind", "-p", "--preferred", "-i", "--interleave"});
  if (wrapper == "taskset") return in({"-c", "--cpu-list"});
  if (wrapper == "xargs")
    return in({"-n", "--max-args", "-I", "-L", "--max-lines", "-P", "--max-procs", "-s", "--max-chars", "-d",
               "--delimiter", "-a", "--arg-file", "-E"});
  return false;
}

bool wrapper_option_changes_dir(std::string_view wrapper, std::string_view option) {
  if (wrapper == "conda" || wrapper == "mamba" || wrapper == "micromamba") return option == "--cwd";
  if (wrapper == "uv") return option == "--directory";
  if (wrapper == "poetry") return option == "-C" || option == "--directory";
  if (wrapper == "srun" || wrapper == "sudo") return option == "-D" || option == "--chdir";
  if (wrapper == "mpirun") return option == "-wdir" || option == "--wdir";
  return false;
}

bool environment_hook(std::string_view command) {
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  std::size_t i = 0;
  while (i < command.size() && blank(command[i])) ++i;
  std::size_t j = i;
  while (j < command.size() && !blank(command[j])) ++j;
  const std::string_view program = program_basename(command.substr(i, j - i));
  while (j < command.size() && blank(command[j])) ++j;
  std::size_t k = j;
  while (k < command.size() && !blank(command[k])) ++k;
  const std::string_view first = command.substr(j, k - j);
  if (program == "conda" || program == "mamba" || program == "micromamba") return first.starts_with("shell");
  if (program == "pyenv" || program == "rbenv" || program == "nodenv" || program == "goenv" || program == "jenv")
    return first == "init" || first == "virtualenv-init";
  if (program == "brew") return first == "shellenv";
  if (program == "opam") return first == "env" || first == "config";
  if (program == "luarocks") return first == "path";
  return program == "ssh-agent" || program == "keychain" || program == "modulecmd";
}

// Reads the env option at argv[k] (GNU coreutils env: -i, -0, -v, -u NAME, -C DIR, -S STRING,
// their long forms, and short ones clustered as getopt reads them); returns the index after it
// and its argument. Prefix assignments made before are dropped as the option drops them.
std::size_t Walker::env_option(const std::vector<RawWord>& argv, std::size_t k,
                               std::vector<std::pair<std::string, RawWord>>& prefix, EnvChanges& changes) {
  const std::string& o = argv[k].text;
  auto unset = [&](const RawWord* name) {
    if (!name || !name->known || name->text.find(kUnknownMark) != std::string::npos) {
      changes.unset_unknown = true;
      for (auto& [n, v] : prefix) v = RawWord{std::string(1, kUnknownMark), false};
      return;
    }
    changes.unset.insert(name->text);
    std::erase_if(prefix, [&](const auto& entry) { return entry.first == name->text; });
  };
  auto ignore = [&] {
    changes.ignore = true;
    prefix.clear();
  };
  const RawWord* next = k + 1 < argv.size() ? &argv[k + 1] : nullptr;
  if (o == "--") return k + 1;
  if (o.starts_with("--")) {
    const std::size_t eq = o.find('=');
    const std::string name = o.substr(0, eq);
    const bool inline_value = eq != std::string::npos;
    RawWord value = argv[k];
    if (inline_value) value.text = o.substr(eq + 1);
    if (name == "--ignore-environment") ignore();
    if (name == "--unset") unset(inline_value ? &value : next);
    if (name == "--chdir") changes.chdir = true;
    const bool takes_value = name == "--unset" || name == "--chdir" || name == "--split-string";
    return k + (takes_value && !inline_value ? 2 : 1);
  }
  for (std::size_t i = 1; i < o.size(); ++i) {
    const char c = o[i];
    if (c == 'i') ignore();
    if (c != 'u' && c != 'C' && c != 'S') continue;
    // The option's value: the rest of this word, or the next word.
    const bool rest = i + 1 < o.size();
    RawWord value = argv[k];
    if (rest) value.text = o.substr(i + 1);
    if (c == 'u') unset(rest ? &value : next);
    if (c == 'C') changes.chdir = true;
    return k + (rest ? 1 : 2);
  }
  return k + 1;
}

}  // namespace detail

std::string_view program_basename(std::string_view p) {
  auto slash = p.rfind('/');
  return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

bool is_python_interpreter(std::string_view name) {
  if (name.rfind("python", 0) != 0) return false;
  for (char c : name.substr(6))
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return false;
  return true;
}

bool is_launcher_program(std::string_view p) {
  // accelerate-launch: accelerate's console script for `accelerate launch` (setup.py
  // console_scripts: accelerate-launch=accelerate.commands.launch:main).
  return p == "accelerate" || p == "accelerate-launch" || p == "torchrun" || p == "deepspeed" || p == "trl" ||
         is_python_interpreter(p);
}

namespace {

// `--gres=gpu:8,lscratch:100`: the count of the one `gpu[:type]:count` entry of the list; empty
// (unknown) for anything else (no gpu entry, several, a count left to its default, flags).
std::string gres_gpu_count(const std::string& list) {
  std::string count;
  int gpu_entries = 0;
  std::size_t pos = 0;
  while (pos <= list.size()) {
    std::size_t comma = list.find(',', pos);
    if (comma == std::string::npos) comma = list.size();
    const std::string entry = list.substr(pos, comma - pos);
    pos = comma + 1;
    std::vector<std::string> parts;
    for (std::size_t b = 0;;) {
      std::size_t colon = entry.find(':', b);
      parts.push_back(entry.substr(b, colon == std::string::npos ? std::string::npos : colon - b));
      if (colon == std::string::npos) break;
      b = colon + 1;
    }
    if (parts[0] != "gpu") continue;
    ++gpu_entries;
    count.clear();
    if (parts.size() == 2 || parts.size() == 3) count = parts.back();
  }
  return gpu_entries == 1 ? count : std::string();
}

}  // namespace

std::vector<PredefinedVar> sbatch_variables(std::string_view text) {
  std::vector<PredefinedVar> out;
  std::string nodes, gpus_per_node, tasks_per_node, gres_gpus;
  std::size_t pos = 0;
  auto is_count = [](const std::string& v) {
    return !v.empty() && v.size() < 7 &&
           std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  };
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) continue;
    if (line[0] != '#') break;  // sbatch stops reading directives at the first command
    if (line.rfind("#SBATCH", 0) != 0) continue;
    auto words = split_words(line.substr(7), [](std::string_view) { return std::optional<VarValue>(); });
    for (std::size_t k = 0; k < words.size(); ++k) {
      std::string w = words[k].text, name = w, value;
      auto eq = w.find('=');
      if (eq != std::string::npos) {
        name = w.substr(0, eq);
        value = w.substr(eq + 1);
      } else if (name.size() > 2 && name[0] == '-' && name[1] != '-') {
        value = name.substr(2);  // -N2
        name = name.substr(0, 2);
      } else if (k + 1 < words.size()) {
        value = words[++k].text;
      }
      if (name == "--nodes" || name == "-N") nodes = value;
      if (name == "--gpus-per-node")
        gpus_per_node = value.find(',') == std::string::npos ? value.substr(value.rfind(':') + 1) : std::string();
      if (name == "--ntasks-per-node") tasks_per_node = value;
      if (name == "--gres") gres_gpus = gres_gpu_count(value);
    }
  }
  auto add = [&](const char* var, const std::string& v) {
    if (is_count(v)) out.push_back({var, v, true, true, true});
  };
  add("SLURM_NNODES", nodes);
  add("SLURM_JOB_NUM_NODES", nodes);
  add("SLURM_GPUS_PER_NODE", gpus_per_node);
  add("SLURM_NTASKS_PER_NODE", tasks_per_node);
  add("SLURM_GPUS_ON_NODE", gpus_per_node.empty() ? gres_gpus : gpus_per_node);
  return out;
}

}  // namespace trl::shell
