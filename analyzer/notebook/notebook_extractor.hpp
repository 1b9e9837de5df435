// Finds the code in a Jupyter notebook (.ipynb JSON): `!cmd` lines and `%%bash` / `%%sh`
// cells as shell, the other code cells as Python. Like the Markdown extractor it returns
// virtual files as long as the .ipynb text, with each cell line placed on the line of the
// .ipynb that holds its JSON string, so diagnostics point into the notebook.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trl::notebook {

// A stretch of shell_text that runs as one shell: bytes [begin, end) from line `line` (0-based).
// IPython runs each `!cmd` (with its backslash-continued lines) in a new subshell, and each
// `%%bash` cell in a bash process of its own: what they assign, export or `cd` to is gone after
// them (`isolated`). `%env` and `%cd` change the kernel's environment and folder, which every later
// command inherits.
struct ShellPiece {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  std::uint32_t line = 0;
  bool isolated = true;
};

// Where a stretch of shell_text or python_text came from: its `length` bytes from offset
// `virtual_begin` are the decoded bytes whose .ipynb offsets are raw[0..length); raw[length] is
// the offset just after the last one.
struct Placement {
  std::uint32_t virtual_begin = 0;
  std::uint32_t length = 0;
  std::vector<std::uint32_t> raw;
};

struct Notebook {
  bool valid = false;            // the text is a notebook (JSON with a `cells` list)
  std::string error;             // why not, when !valid
  std::size_t error_offset = 0;  // where the JSON stopped making sense (byte offset), when !valid
  std::string shell_text;
  std::vector<ShellPiece> shell_pieces;  // in order; shell_text outside them is blank
  std::string python_text;
  std::size_t cells_skipped = 0;  // code cells whose lines could not be placed line by line
  // Each line placed in shell_text or python_text, in text order: a line's decoded text sits at
  // the start of its .ipynb line (shell: right-aligned), not over the JSON string it came from.
  std::vector<Placement> placements;
};

Notebook scan(std::string_view text);

// The .ipynb offset of the character at `offset` of shell_text or python_text (`offset` itself
// outside every placement: the start of a line, a blank).
std::uint32_t file_offset(const std::vector<Placement>& placements, std::uint32_t offset);

}  // namespace trl::notebook
