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

// YAML snippets of a documentation page (the page's YAML code blocks, the rest blanked): read
// with tree-sitter's error recovery, block by block as far as it goes, since one block that is
// not whole YAML (`...` for elided keys) must not hide the others. No problems are reported.
YamlFacts extract_snippets(std::string_view text, FileId file);

}  // namespace trl::yaml
