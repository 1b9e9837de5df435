// Parse-only baseline for `make bench`: walks a folder and parses every Python and YAML file
// single-threaded with the same tree-sitter grammars trl-lint uses, and does nothing else
// (no extraction, no evaluation, no rules). Prints one line:
//   files=<n> bytes=<b> seconds=<wall>
// Usage: bench_parse_baseline [--threads N] FOLDER
//
// --threads N (N > 1) parses the same files on N threads, each with its own parser, taking the
// next file from a shared counter: the "parse-only bound", the fastest any tool could be that
// parses every one of these files with these grammars on N cores. It is reported beside the
// baseline, not instead of it (docs/performance.md, "The parse-only bound").
#include <tree_sitter/api.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>
#include <vector>

extern "C" {
const TSLanguage* tree_sitter_python();
const TSLanguage* tree_sitter_yaml();
}

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  unsigned threads = 1;
  const char* folder = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      threads = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (!folder && arg.rfind("--", 0) != 0) {
      folder = argv[i];
    } else {
      folder = nullptr;
      break;
    }
  }
  if (!folder || threads == 0 || threads > 256) {
    std::fprintf(stderr, "usage: bench_parse_baseline [--threads N] FOLDER\n");
    return 2;
  }
  auto start = std::chrono::steady_clock::now();
  std::vector<std::pair<fs::path, bool>> files;  // path, is_python
  std::error_code ec;
  for (fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end; it != end;
       it.increment(ec)) {
    if (ec) break;
    std::string name = it->path().filename().string();
    // The folders trl-lint's discovery skips by name (analyzer/discover/discover.cpp,
    // skipped_dir), and no others: trl-lint reads hidden folders such as .github (workflows).
    static const std::set<std::string> skipped = {
        ".git",           ".hg",   ".svn", "node_modules",       "__pycache__",   ".venv",
        "venv",           ".tox",  ".nox", ".mypy_cache",        ".pytest_cache", ".ruff_cache",
        ".eggs",          "build", "dist", ".ipynb_checkpoints", "site-packages", ".cache",
        ".trl-lint_cache"};
    if (it->is_directory() && skipped.count(name)) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file()) continue;
    auto ext = it->path().extension().string();
    if (ext == ".py")
      files.emplace_back(it->path(), true);
    else if (ext == ".yaml" || ext == ".yml")
      files.emplace_back(it->path(), false);
  }
  // One parser per thread; each thread takes the next file from the shared counter.
  std::atomic<std::size_t> next{0}, bytes{0}, parsed{0}, nodes{0};
  auto work = [&] {
    TSParser* parser = ts_parser_new();
    for (std::size_t i = next++; i < files.size(); i = next++) {
      const auto& [path, is_python] = files[i];
      std::ifstream in(path, std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      ts_parser_set_language(parser, is_python ? tree_sitter_python() : tree_sitter_yaml());
      TSTree* tree = ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size()));
      if (tree) {
        nodes += ts_node_child_count(ts_tree_root_node(tree));  // keep the parse observable
        ts_tree_delete(tree);
        ++parsed;
      }
      bytes += text.size();
    }
    ts_parser_delete(parser);
  };
  if (threads == 1) {
    work();  // the baseline: no thread is started
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
    for (auto& t : pool) t.join();
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("files=%zu bytes=%zu seconds=%.6f top_nodes=%zu\n", parsed.load(), bytes.load(), secs, nodes.load());
  return 0;
}
