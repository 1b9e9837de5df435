// Splits and expands shell words the way bash would for simple scripts: quotes, escapes,
// $VAR, ${VAR}, ${VAR:-default}. Anything that needs running code ($(...), `...`,
// arithmetic, an unset variable) makes the word unknown.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trl::shell {

struct RawWord {
  std::string text;  // expanded text (partial when !known)
  bool known = true;
  std::uint32_t begin = 0;  // byte offsets into the split string
  std::uint32_t end = 0;
};

// Looks a variable up: nullopt = unset in the script; a value with known=false = set to
// something unknown.
struct VarValue {
  std::string text;
  bool known = true;
};
using VarLookup = std::function<std::optional<VarValue>(std::string_view name)>;

// Splits `text` into words and expands each. Stops at an unquoted `#` comment,
// `;`, `&`, `|` (command separators).
std::vector<RawWord> split_words(std::string_view text, const VarLookup& lookup);

// Expands one assignment value (no word splitting).
RawWord expand_value(std::string_view text, const VarLookup& lookup);

}  // namespace trl::shell
