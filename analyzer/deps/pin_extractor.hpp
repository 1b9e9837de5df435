// Reads the pins of trl, transformers and accelerate from dependency files: requirements*.txt,
// pyproject.toml ([project] dependencies and optional groups, Poetry tables), setup.cfg
// install_requires / extras_require, setup.py string literals, environment.yml (pip section).
#pragma once

#include <optional>
#include <string_view>

#include "analyzer/facts/package_pin.hpp"

namespace trl {
struct SourceFile;
struct FileFacts;
}  // namespace trl

namespace trl::deps {

// Fills facts.pins for the dependency files among the file kinds; no-op for other files.
void extract_pins(const SourceFile& file, FileFacts& facts);

// One PEP 508 requirement (`trl[vllm]>=0.19,<0.20 ; python_version>"3.9"`), or a pip URL line.
// Only the three modelled libraries are returned.
std::optional<PackagePin> parse_requirement(std::string_view text);

}  // namespace trl::deps
