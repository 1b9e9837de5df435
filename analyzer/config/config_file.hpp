// Reads one configuration file (`.trl-lint.yaml`, or the `[tool.trl-lint]` table of a
// pyproject.toml) into Settings, following `extend` to the files it inherits from.
#pragma once

#include <string>

#include "analyzer/config/settings.hpp"

namespace trl {

// The file names looked for in each folder, in order of preference.
// In one folder, the first of these that is a configuration governs it (`.trl-lint.toml` and
// `trl-lint.toml` hold the keys at their top level, as ruff.toml does).
inline constexpr const char* kConfigFileNames[] = {".trl-lint.yaml", ".trl-lint.yml", ".trl-lint.toml", "trl-lint.toml",
                                                   "pyproject.toml"};

// True when `abs_path` is a trl-lint configuration: a .trl-lint.yaml/.yml, or a pyproject.toml
// with a [tool.trl-lint] table.
bool is_config_file(const std::string& abs_path);

// Loads `abs_path` and the chain of files it extends (a cycle is an error). Throws ConfigError.
Settings load_config_file(const std::string& abs_path);

}  // namespace trl
