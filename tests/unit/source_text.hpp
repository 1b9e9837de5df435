// A file of the checkout (a path relative to its root), read whole for a unit test; "" when it
// cannot be read.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace trl::test {

inline std::string source_text(const std::string& path) {
  std::ifstream in(std::string(TRL_LINT_SOURCE_DIR) + "/" + path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace trl::test
