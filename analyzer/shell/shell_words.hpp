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

// Marks the place of an unknown part inside expanded text, so that a value assembled from
// known and unknown pieces keeps its known words when it is split again later
// (`LAUNCHER="accelerate launch --num_processes $N"`, then `bash -c "$LAUNCHER"`).
inline constexpr char kUnknownMark = '\x01';

struct RawWord {
  std::string text;  // expanded text (partial when !known; unknown parts marked kUnknownMark)
  bool known = true;
  bool unquoted_expansion = false;  // holds an unquoted $-expansion: bash splits it on blanks
  std::uint32_t begin = 0;          // byte offsets into the split string
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

// Evaluates bash arithmetic (`$((N * G))`) over integers and known variables; nullopt when a
// part is unknown or the expression is not understood.
std::optional<long long> eval_arithmetic(std::string_view expr, const VarLookup& lookup);

// Splits an expanded word on blanks, as bash does with an unquoted expansion; each field is
// known when it holds no unknown mark.
std::vector<RawWord> field_split(const RawWord& word);

}  // namespace trl::shell
