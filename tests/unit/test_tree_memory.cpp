// Syntax trees are freed once a file's facts are extracted (issue 8: "trees are freed once their
// facts are extracted"). tree-sitter's library allocates its trees, nodes, parsers and cursors
// through functions that ts_set_allocator replaces: these tests count the blocks it holds across
// one extraction. (The grammars' external scanners allocate their small state with the C library
// directly, not through these functions, and are not counted.)
#include <tree_sitter/api.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "analyzer/parse/tree_sitter.hpp"
#include "analyzer/python/python_extractor.hpp"
#include "analyzer/shell/shell_extractor.hpp"
#include "analyzer/yaml/yaml_extractor.hpp"

using namespace trl;

namespace {

// Blocks tree-sitter holds, as allocated through the counting functions minus those freed. The
// counting functions call the C library's, so blocks allocated before they were installed (the
// thread's kept parser) are freed the same way; only differences across one call are read.
std::atomic<long> live_blocks{0};

void* counting_malloc(std::size_t n) {
  void* p = std::malloc(n);
  if (p) ++live_blocks;
  return p;
}
void* counting_calloc(std::size_t n, std::size_t size) {
  void* p = std::calloc(n, size);
  if (p) ++live_blocks;
  return p;
}
void* counting_realloc(void* p, std::size_t n) {
  void* q = std::realloc(p, n);
  if (!p && q) ++live_blocks;
  if (p && n == 0) --live_blocks;  // glibc frees the block
  return q;
}
void counting_free(void* p) {
  if (p) --live_blocks;
  std::free(p);
}

// Installs the counting functions for the life of the object, then tree-sitter's defaults.
struct CountingAllocator {
  CountingAllocator() { ts_set_allocator(counting_malloc, counting_calloc, counting_realloc, counting_free); }
  ~CountingAllocator() { ts_set_allocator(nullptr, nullptr, nullptr, nullptr); }
  CountingAllocator(const CountingAllocator&) = delete;
  CountingAllocator& operator=(const CountingAllocator&) = delete;
};

// The blocks `work` leaves held, after two runs of it that let the thread's parser grow its
// buffers and fill its pool of reusable nodes.
long blocks_kept_by(const std::function<void()>& work) {
  work();
  work();
  const long before = live_blocks.load();
  work();
  return live_blocks.load() - before;
}

std::string python_module() {
  std::string text = "from trl import SFTConfig, SFTTrainer\nimport yaml\n\n";
  for (int i = 0; i < 40; ++i)
    text += "def helper_" + std::to_string(i) + "(x, y=" + std::to_string(i) +
            "):\n    if x > y:\n        return {\"a\": [x, y], 'b': f\"{x}-{y}\"}\n    return None\n\n";
  text += "config = SFTConfig(packing=True, max_length=4096)\n";
  return text;
}

}  // namespace

TEST_CASE("tree memory: extraction keeps no block of tree-sitter's allocator", "[memory]") {
  CountingAllocator counting;
  const std::string py = python_module();
  std::string yml = "model_name_or_path: Qwen/Qwen2.5-0.5B\npacking: true\nfsdp_config:\n";
  for (int i = 0; i < 60; ++i) yml += "  key_" + std::to_string(i) + ": [1, 2, {a: b}]\n";
  std::string sh = "#!/bin/bash\nset -euo pipefail\n";
  for (int i = 0; i < 30; ++i)
    sh += "accelerate launch --config_file a.yaml train.py --config c" + std::to_string(i) + ".yaml | tee log\n";

  CHECK(blocks_kept_by([&] { (void)python::extract(py, 0); }) == 0);
  CHECK(blocks_kept_by([&] { (void)yaml::extract(yml, 0); }) == 0);
  CHECK(blocks_kept_by([&] { (void)shell::extract(sh, 0); }) == 0);
  // Broken input takes error recovery's paths through the parser.
  CHECK(blocks_kept_by([&] { (void)python::extract("def f(:\n  x = [1, 2\nclass\n", 0); }) == 0);
  CHECK(blocks_kept_by([&] { (void)yaml::extract("a: [1, 2\nb: {c\n  - d\n", 0); }) == 0);
}

TEST_CASE("tree memory: the count sees a tree that is kept", "[memory]") {
  // The control: a tree held past the measured call is counted, so the zeros above mean freed.
  CountingAllocator counting;
  const std::string py = python_module();
  std::vector<ts::Tree> held;
  const long kept = blocks_kept_by([&] { held.push_back(ts::parse(tree_sitter_python(), py)); });
  REQUIRE(held.size() == 3);
  CHECK(held.back());
  CHECK(kept > 100);  // the third tree's nodes
  held.clear();
}
