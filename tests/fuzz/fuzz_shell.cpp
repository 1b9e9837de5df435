// libFuzzer target: the shell extractor and the word splitter/expander on arbitrary bytes.
#include "analyzer/shell/shell_extractor.hpp"
#include "analyzer/shell/shell_words.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = trl::fuzz::as_text(data, size);
  auto facts = trl::shell::extract(text, 0);
  for (const auto& c : facts.commands)
    for (const auto& w : c.argv)
      if (w.span.end > size || w.span.begin > w.span.end) __builtin_trap();
  trl::shell::VarLookup lookup = [](std::string_view name) -> std::optional<trl::shell::VarValue> {
    if (name == "UNKNOWN") return trl::shell::VarValue{"", false};
    if (name.size() % 2) return trl::shell::VarValue{"value", true};
    return std::nullopt;
  };
  for (const auto& w : trl::shell::split_words(text, lookup))
    if (w.end > size || w.begin > w.end) __builtin_trap();
  trl::shell::expand_value(text, lookup);
  return 0;
}
