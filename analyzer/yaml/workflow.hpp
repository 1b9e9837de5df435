// GitHub Actions workflows (.github/workflows/*.yml): the `run:` script of every step is a
// shell script; it is handed to the shell extractor in place (the rest of the file blanked), with
// the workflow, job and step `env:` as exported variables and `working-directory` as its folder.
#pragma once

#include <string_view>

#include "analyzer/facts/yaml_node.hpp"
#include "analyzer/shell/shell_extractor.hpp"

namespace trl::yaml {

bool is_workflow_path(std::string_view path);

shell::ShellFacts workflow_commands(const YamlDocument& doc, std::string_view text, FileId file);

}  // namespace trl::yaml
