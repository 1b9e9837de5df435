// Turns a JSON file into a document of values with JSON's own semantics (`2e-5` is a float,
// `"yes"` a string), with the span of every key and value where the text allows: the
// configuration files that `HfArgumentParser.parse_json_file` and `json.load` read.
#pragma once

#include <string_view>

#include "analyzer/yaml/yaml_extractor.hpp"

namespace trl::json {

// Invalid JSON gives one TRL903 problem and no document. Valid JSON always gives its values;
// spans point at each key and value when the text also parses as a YAML flow collection (it
// nearly always does) and is at most 1 MB, else at the start of the file.
yaml::YamlFacts extract(std::string_view text, FileId file);

// The deepest nesting of arrays and objects in a JSON text (strings skipped), read without
// parsing: nlohmann's parser, copies and comparisons recurse once per level.
std::size_t nesting(std::string_view text);

}  // namespace trl::json
