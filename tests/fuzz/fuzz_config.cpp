// libFuzzer target: the project configuration loader (`.trl-lint.yaml` through yaml-cpp, the
// `[tool.trl-lint]` table of pyproject.toml through toml++). The first byte picks the file; a
// bad file must end in ConfigError (a message with a location), never in a crash or another
// exception.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "analyzer/config/config_file.hpp"
#include "analyzer/config/settings.hpp"
#include "tests/fuzz/fuzz_common.hpp"

namespace {

const std::filesystem::path& folder() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("trl-lint-fuzz-config-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool toml = data[0] & 1;
  std::string_view body = trl::fuzz::as_text(data + 1, size - 1);
  const auto path = folder() / (toml ? "pyproject.toml" : ".trl-lint.yaml");
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (toml) out << "[tool.trl-lint]\n";
    out << body;
  }
  try {
    trl::load_config_file(path.string());
  } catch (const trl::ConfigError&) {
    // the expected outcome for most inputs
  }
  std::filesystem::remove(path);
  return 0;
}
