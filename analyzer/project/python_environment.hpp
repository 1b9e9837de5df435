// The Python environment a project runs in, and the versions of trl, transformers and accelerate
// installed there. The environment is read, never run: its site-packages folders are listed and
// each distribution's metadata read (`*.dist-info/METADATA`, `*.egg-info/PKG-INFO`).
//
// The environment of a project is the first of:
//   1. `--python PATH` (an interpreter such as `env/bin/python`, or the environment's folder);
//   2. `$VIRTUAL_ENV` (an activated virtual environment);
//   3. `.venv/` or `venv/` in the project's folder;
//   4. `$CONDA_PREFIX` (an activated conda environment; often the base environment of every
//      shell, so a project's own environment comes first).
// A library the environment does not hold is judged by the project's pins, as without one.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace trl {

// Environments named outside the project: by the command line and the process environment.
struct EnvironmentHints {
  std::string python;        // --python (as given, made absolute)
  std::string virtual_env;   // $VIRTUAL_ENV
  std::string conda_prefix;  // $CONDA_PREFIX
  // The hints of this process: `python` from the option, the others from its environment.
  static EnvironmentHints from_process(const std::string& python_option);
  bool operator==(const EnvironmentHints&) const = default;
};

// A library installed in an environment.
struct InstalledLibrary {
  std::string version;
  // Where it was read, as messages show it: relative to the project folder when inside it
  // (".venv/lib/python3.11/site-packages/trl-0.21.0.dist-info"), else absolute.
  std::string where;
  std::string environment;  // how the environment was chosen: "--python", "$VIRTUAL_ENV", ".venv", ...
  std::string site;         // the site-packages folder holding it (absolute): its source is there
  // Two installs of different versions in one environment (a stale metadata folder): which one
  // Python imports is not knowable here, so the version is left to the pins.
  bool ambiguous = false;
};

struct PythonEnvironment {
  std::string prefix;                                 // the environment's folder (absolute); empty: none found
  std::string chosen;                                 // "--python", "$VIRTUAL_ENV", ".venv", "venv" or "$CONDA_PREFIX"
  std::map<std::string, InstalledLibrary> libraries;  // trl, transformers, accelerate (those installed)
};

// The environment of the project whose folder is `root`. Read once per (root, hints) and kept
// for the life of the process; the result cache keys on it (installed_libraries).
const PythonEnvironment& python_environment(const std::string& root, const EnvironmentHints& hints);

// True when `prefix` is a folder with a site-packages folder where Python environments keep them.
bool is_python_environment(const std::string& prefix);

// The folder of the environment `--python PATH` names: PATH itself when it is a folder, the
// folder above `bin/` or `Scripts/` for an interpreter; empty when PATH names neither.
std::string environment_of_python_option(const std::string& path);

// Name and version from a distribution's metadata text (RFC 822 headers: `Name:`, `Version:`);
// empty strings when absent. The name is normalised as PEP 503 says (lower case, runs of `-_.`
// as one `-`).
std::pair<std::string, std::string> parse_distribution_metadata(const std::string& text);

}  // namespace trl
