// libFuzzer target: the YAML extractor (tree-sitter + anchors/merge keys) and the PyYAML
// scalar resolver on arbitrary bytes.
#include "analyzer/yaml/pyyaml_resolver.hpp"
#include "analyzer/yaml/yaml_extractor.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = trl::fuzz::as_text(data, size);
  auto facts = trl::yaml::extract(text, 0);
  for (const auto& p : facts.problems)
    if (p.span.end > size || p.span.begin > p.span.end) __builtin_trap();
  trl::FileFacts as_file;
  as_file.yaml = facts.documents;
  as_file.comments = facts.comments;
  as_file.problems = facts.problems;
  trl::fuzz::check_facts_codec(as_file, text);
  // The resolver sees scalars, usually short: fuzz it on the first line as well as on all.
  std::string_view first = text.substr(0, text.find('\n'));
  for (std::string_view s : {text, first}) {
    trl::yaml::resolve_plain(s);
    for (const char* tag : {"!!str", "!!int", "!!float", "!!bool", "!!null", "!custom"}) {
      trl::yaml::resolve_tagged(tag, s, true);
      trl::yaml::resolve_tagged(tag, s, false);
    }
  }
  return 0;
}
