// Parse-only baseline for `make bench`: walks a folder and parses, single-threaded with the same
// tree-sitter grammars trl-lint uses, every file trl-lint parses with them: Python, YAML and shell
// files, the code cells of notebooks (Python), and the fenced code blocks of Markdown files
// (python, yaml, bash/sh/shell/console). Nothing else: no extraction, no evaluation, no rules
// (reading a notebook's JSON is the one step beyond parsing). Prints one line:
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
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_args.hpp"

extern "C" {
const TSLanguage* tree_sitter_python();
const TSLanguage* tree_sitter_yaml();
const TSLanguage* tree_sitter_bash();
}

namespace fs = std::filesystem;

namespace {

enum class Kind { Python, Yaml, Shell, Notebook, Markdown };

// The texts to parse in one file, with their grammar.
std::vector<std::pair<std::string, const TSLanguage*>> pieces(Kind kind, std::string text) {
  std::vector<std::pair<std::string, const TSLanguage*>> out;
  switch (kind) {
    case Kind::Python: out.emplace_back(std::move(text), tree_sitter_python()); break;
    case Kind::Yaml: out.emplace_back(std::move(text), tree_sitter_yaml()); break;
    case Kind::Shell: out.emplace_back(std::move(text), tree_sitter_bash()); break;
    case Kind::Notebook: {
      const auto nb = nlohmann::json::parse(text, nullptr, false);
      if (!nb.is_object() || !nb.contains("cells") || !nb["cells"].is_array()) break;
      std::string code;
      for (const auto& cell : nb["cells"]) {
        if (!cell.is_object() || cell.value("cell_type", "") != "code" || !cell.contains("source")) continue;
        const auto& src = cell["source"];
        if (src.is_string()) code += src.get<std::string>();
        if (src.is_array())
          for (const auto& line : src)
            if (line.is_string()) code += line.get<std::string>();
        code += '\n';
      }
      out.emplace_back(std::move(code), tree_sitter_python());
      break;
    }
    case Kind::Markdown: {
      // ```lang ... ``` blocks.
      std::size_t pos = 0;
      while ((pos = text.find("```", pos)) != std::string::npos) {
        const std::size_t eol = text.find('\n', pos);
        if (eol == std::string::npos) break;
        const std::string lang = text.substr(pos + 3, eol - pos - 3);
        const std::size_t end = text.find("\n```", eol);
        if (end == std::string::npos) break;
        const TSLanguage* grammar = lang.rfind("py", 0) == 0                      ? tree_sitter_python()
                                    : lang.rfind("yaml", 0) == 0 || lang == "yml" ? tree_sitter_yaml()
                                    : lang == "bash" || lang == "sh" || lang == "shell" || lang == "console"
                                        ? tree_sitter_bash()
                                        : nullptr;
        if (grammar) out.emplace_back(text.substr(eol + 1, end - eol), grammar);
        pos = end + 4;
      }
      break;
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const auto args = parse_bench_args(argc, argv, "bench_parse_baseline");
  if (!args) return 2;
  const unsigned threads = args->threads;
  const char* folder = args->folder;
  auto start = std::chrono::steady_clock::now();
  std::vector<std::pair<fs::path, Kind>> files;
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
      files.emplace_back(it->path(), Kind::Python);
    else if (ext == ".yaml" || ext == ".yml")
      files.emplace_back(it->path(), Kind::Yaml);
    else if (ext == ".sh" || ext == ".slurm")
      files.emplace_back(it->path(), Kind::Shell);
    else if (ext == ".ipynb")
      files.emplace_back(it->path(), Kind::Notebook);
    else if (ext == ".md")
      files.emplace_back(it->path(), Kind::Markdown);
  }
  // One parser per thread; each thread takes the next file from the shared counter.
  std::atomic<std::size_t> next{0}, bytes{0}, parsed{0}, nodes{0};
  auto work = [&] {
    TSParser* parser = ts_parser_new();
    for (std::size_t i = next++; i < files.size(); i = next++) {
      const auto& [path, kind] = files[i];
      std::ifstream in(path, std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      bytes += text.size();
      bool any = false;
      for (const auto& [piece, grammar] : pieces(kind, std::move(text))) {
        ts_parser_set_language(parser, grammar);
        TSTree* tree = ts_parser_parse_string(parser, nullptr, piece.data(), static_cast<uint32_t>(piece.size()));
        if (tree) {
          nodes += ts_node_child_count(ts_tree_root_node(tree));  // keep the parse observable
          ts_tree_delete(tree);
          any = true;
        }
      }
      if (any) ++parsed;
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
