// Finds the code in a Markdown file: fenced blocks (bash/sh/shell/console/zsh, python, yaml)
// and indented code blocks, and the headings that divide the file into sections. Each kind of
// code is returned as a "virtual file": a text as long as the Markdown file, with every byte
// outside the blocks of that kind blanked (newlines kept), so the ordinary extractors run on it
// and their spans point at the right line of the Markdown file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trl::markdown {

enum class BlockLang { Shell, Python, Yaml, Other };

struct Block {
  BlockLang lang = BlockLang::Other;
  std::uint32_t first_line = 0;  // first and last content line (0-based)
  std::uint32_t last_line = 0;
  bool indented = false;    // an indented code block (read as shell)
  std::uint32_t begin = 0;  // bytes of the content lines: [begin, end)
  std::uint32_t end = 0;
};

struct Heading {
  int level = 1;
  std::uint32_t line = 0;
};

struct Document {
  std::vector<Block> blocks;
  std::vector<Heading> headings;
  // shell blocks, `$ ` prompts and console output blanked. Each block is a script of its own
  // (shell::extract_session over the Shell blocks' [begin, end)).
  std::string shell_text;
  std::string python_text;  // python blocks, dedented (`>>> ` prompts stripped)
  std::string yaml_text;    // yaml blocks, dedented; each opening fence becomes `---`
};

Document scan(std::string_view text);

// The line ranges [begin, end) of the sections that contain `line`, innermost first: the
// section of the nearest heading above it, then that heading's parent, and so on.
std::vector<std::pair<std::uint32_t, std::uint32_t>> enclosing_sections(const std::vector<Heading>& headings,
                                                                        std::uint32_t line, std::uint32_t line_count);

}  // namespace trl::markdown
