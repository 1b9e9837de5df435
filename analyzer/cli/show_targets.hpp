// `config --show` and `--show-settings`: the library versions a file or folder is judged
// against, and why.
#pragma once

#include <ostream>
#include <string>

#include "analyzer/config/configuration.hpp"
#include "analyzer/project/python_environment.hpp"

namespace trl::cli {

// `config --show` / `--show-settings`: the library versions findings about `abs` (a file or a
// folder of the project) are judged against, and why: the project's pins, its environment, the
// configuration's `target-versions`, or the newest release known. (`--target-version` wins over
// all of them.)
void print_targets(std::ostream& out, const std::string& abs, Configuration& config, const EnvironmentHints& hints);

}  // namespace trl::cli
