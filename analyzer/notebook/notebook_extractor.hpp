// Finds the code in a Jupyter notebook (.ipynb JSON): `!cmd` lines and `%%bash` / `%%sh`
// cells as shell, the other code cells as Python. Like the Markdown extractor it returns
// virtual files as long as the .ipynb text, with each cell line placed on the line of the
// .ipynb that holds its JSON string, so diagnostics point into the notebook.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace trl::notebook {

struct Notebook {
  bool valid = false;  // the text is a notebook (JSON with a `cells` list)
  std::string error;   // why not, when !valid
  std::string shell_text;
  std::string python_text;
  std::size_t cells_skipped = 0;  // code cells whose lines could not be placed line by line
};

Notebook scan(std::string_view text);

}  // namespace trl::notebook
