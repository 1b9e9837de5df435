// Turns a YAML file into documents of resolved values (PyYAML semantics) with spans.
#pragma once

#include <string_view>
#include <vector>

#include "analyzer/facts/file_facts.hpp"
#include "analyzer/facts/yaml_node.hpp"

namespace trl::yaml {

struct YamlFacts {
  std::vector<YamlDocument> documents;
  std::vector<FileProblem> problems;
  std::vector<Comment> comments;
};

// `base` is added to every span offset; used for YAML embedded in another file.
YamlFacts extract(std::string_view text, FileId file);

}  // namespace trl::yaml
