// Resolves a YAML scalar exactly as PyYAML's `yaml.safe_load` does (YAML 1.1 implicit
// resolvers of lib/yaml/resolver.py and SafeConstructor of lib/yaml/constructor.py, PyYAML 6.0.3).
#pragma once

#include <string_view>

#include "analyzer/facts/scalar.hpp"

namespace trl::yaml {

// `text` is the scalar's content; `plain` is false for quoted and block scalars, which are
// always strings unless an explicit tag says otherwise.
Scalar resolve_plain(std::string_view text);

// Applies an explicit standard tag (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`) to text.
// Unknown tags leave the plain resolution.
Scalar resolve_tagged(std::string_view tag, std::string_view text, bool plain);

// Whether the whole of `text` matches PyYAML's implicit float, int or timestamp pattern
// (lib/yaml/resolver.py, PyYAML 6.0.3).
bool matches_float(std::string_view text);
bool matches_int(std::string_view text);
bool matches_timestamp(std::string_view text);
// Whether `text` is a number in exponent form that YAML 1.2 reads as a float but PyYAML's YAML
// 1.1 pattern does not require a dot or a signed exponent for:
//   [-+]?([0-9][0-9_]*(\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+
bool matches_exponent_number(std::string_view text);

}  // namespace trl::yaml
