#include "analyzer/facts/yaml_node.hpp"

namespace trl {

const YamlEntry* YamlNode::find(std::string_view key) const {
  const YamlEntry* found = nullptr;
  for (const auto& e : entries)
    if (e.key == key) found = &e;
  return found;
}

}  // namespace trl
