// libFuzzer target: the Markdown scanner (fenced and indented code blocks, headings, sections)
// and the extractors it feeds, on arbitrary bytes.
#include "analyzer/markdown/markdown_extractor.hpp"
#include "analyzer/python/python_extractor.hpp"
#include "analyzer/shell/shell_extractor.hpp"
#include "analyzer/yaml/yaml_extractor.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = trl::fuzz::as_text(data, size);
  auto doc = trl::markdown::scan(text);
  // The virtual files keep the Markdown file's length so that spans land on its lines.
  for (const std::string* v : {&doc.shell_text, &doc.python_text, &doc.yaml_text})
    if (v->size() != size && !v->empty()) __builtin_trap();
  std::uint32_t lines = 1;
  for (char c : text) lines += c == '\n';
  for (const auto& b : doc.blocks)
    if (b.first_line > b.last_line || b.last_line >= lines) __builtin_trap();
  for (const auto& h : doc.headings) {
    if (h.line >= lines || h.level < 1 || h.level > 6) __builtin_trap();
    for (const auto& [lo, hi] : trl::markdown::enclosing_sections(doc.headings, h.line, lines))
      if (lo > hi || hi > lines) __builtin_trap();
  }
  trl::shell::extract(doc.shell_text, 0);
  trl::python::extract(doc.python_text, 0);
  trl::yaml::extract(doc.yaml_text, 0);
  return 0;
}
