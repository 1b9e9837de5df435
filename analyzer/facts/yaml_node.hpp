// A YAML document as PyYAML's safe_load would build it (anchors and merge keys resolved),
// with the source span of every key and value.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analyzer/facts/scalar.hpp"
#include "analyzer/source/source_file.hpp"

namespace trl {

enum class ScalarStyle { Plain, SingleQuoted, DoubleQuoted, Literal, Folded };

struct YamlNode;

struct YamlEntry {
  std::string key;  // the key as text (PyYAML would give str for string keys)
  Span key_span;
  std::shared_ptr<const YamlNode> value;
};

struct YamlNode {
  enum class Kind { Scalar, Mapping, Sequence, Invalid };
  Kind kind = Kind::Invalid;
  Scalar scalar;    // Kind::Scalar
  std::string raw;  // scalar text as written (without quotes)
  ScalarStyle style = ScalarStyle::Plain;
  bool tagged = false;    // an explicit tag was present
  bool anchored = false;  // written with an anchor (`&name value`): aliases elsewhere share it
  // A plain scalar written as a number in exponent form (`1e-5`, `3e4`, `1.0e-5`;
  // yaml::matches_exponent_number). YAML 1.2 reads each as a number; PyYAML's YAML 1.1 pattern
  // only those with a dot and a signed exponent, so the others load as strings (`scalar`).
  bool exponent_number = false;
  Span span;
  std::vector<YamlEntry> entries;                      // Kind::Mapping, in file order
  std::vector<std::shared_ptr<const YamlNode>> items;  // Kind::Sequence

  // Last entry with `key` (PyYAML keeps the last duplicate), or null.
  const YamlEntry* find(std::string_view key) const;
};

struct YamlDocument {
  std::shared_ptr<const YamlNode> root;  // null for an empty document
};

}  // namespace trl
