// libFuzzer target: the LSP message loop of `trl-lint server`. The input is what a client writes
// to the server's standard input (framed JSON-RPC messages, or anything else); the server must
// neither crash nor hang, and everything it writes must be well-framed JSON. Its workspace is a
// copy of a cross-file fixture project at a fixed path (kRoot), whatever `rootUri` says, so that
// the recorded seed sessions (tests/fuzz/seeds/lsp/) can name its files.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "analyzer/lsp/framing.hpp"
#include "analyzer/lsp/server.hpp"
#include "tests/fuzz/fuzz_common.hpp"

namespace fs = std::filesystem;

namespace {

constexpr const char* kRoot = "/tmp/trl-lint-fuzz-lsp";

// Copies the project named by TRL_LINT_FUZZ_LSP_PROJECT (run_fuzzer.sh sets it to a TRL101 case
// of tests/cases, written out) to kRoot, each file written to a temporary name, then renamed:
// several fuzzing processes may share the folder.
void make_workspace() {
  const char* project = std::getenv("TRL_LINT_FUZZ_LSP_PROJECT");
  if (!project || !fs::is_directory(project)) {
    std::fprintf(stderr,
                 "fuzz_lsp: TRL_LINT_FUZZ_LSP_PROJECT must name the workspace's project (run_fuzzer.sh sets it)\n");
    std::abort();
  }
  const fs::path fixture = project;
  for (const auto& e : fs::recursive_directory_iterator(fixture)) {
    if (!e.is_regular_file()) continue;
    const fs::path to = fs::path(kRoot) / fs::relative(e.path(), fixture);
    fs::create_directories(to.parent_path());
    const fs::path tmp = to.string() + ".tmp" + std::to_string(::getpid());
    fs::copy_file(e.path(), tmp, fs::copy_options::overwrite_existing);
    fs::rename(tmp, to);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool ready = (make_workspace(), true);
  (void)ready;
  std::istringstream in(std::string(trl::fuzz::as_text(data, size)));
  std::ostringstream out;
  trl::lsp::ServerOptions options;
  options.fixed_root = kRoot;
  trl::lsp::run_server(in, out, options);
  // Every message written is a frame of valid JSON.
  std::istringstream written(out.str());
  while (true) {
    trl::lsp::Frame f = trl::lsp::read_frame(written);
    if (f.status == trl::lsp::Frame::Status::Eof) break;
    if (f.status != trl::lsp::Frame::Status::Ok) __builtin_trap();
    if (nlohmann::json::parse(f.body, nullptr, false).is_discarded()) __builtin_trap();
  }
  return 0;
}
