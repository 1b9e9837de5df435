// Benchmark of the evaluation stage alone (link + Python dataflow + run building) on a
// synthetic project: N modules in call chains of depth 10 across modules, constants modules,
// and one entry script per chain. Parsing happens before the timer starts.
//
//   bench_eval MODULES [REPEATS]   -> one line: modules, median ms, min ms, max ms, peak RSS MB
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "analyzer/eval/run_builder.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/project/project.hpp"

namespace {

constexpr int kChain = 10;

std::vector<std::pair<std::string, std::string>> synthetic(int modules) {
  std::vector<std::pair<std::string, std::string>> files;
  const int chains = std::max(1, modules / (kChain + 2));
  for (int c = 0; c < chains; ++c) {
    const std::string pkg = "pkg" + std::to_string(c);
    files.push_back({pkg + "/__init__.py", ""});
    files.push_back({pkg + "/constants.py", "PACK = " + std::string(c % 2 ? "True" : "False") +
                                                "\nCP = 2\nMAX_LENGTH = 4096\nNAMES = ['a', 'b', 'c']\n"});
    for (int i = 0; i < kChain; ++i) {
      std::string body = "from " + pkg + ".constants import PACK, CP, MAX_LENGTH\n";
      if (i + 1 < kChain) {
        body += "from " + pkg + ".step" + std::to_string(i + 1) + " import build as next_build\n\n\n";
        body += "def build(pack=PACK, **kwargs):\n    kwargs.setdefault('max_length', MAX_LENGTH)\n";
        body += "    if pack is None:\n        pack = False\n    return next_build(pack, **kwargs)\n";
      } else {
        body += "from accelerate import ParallelismConfig\nfrom trl import SFTConfig\n\n\n";
        body +=
            "def build(pack=PACK, **kwargs):\n    return SFTConfig(packing=pack, "
            "parallelism_config=ParallelismConfig(cp_size=CP), **kwargs)\n";
      }
      // Unrelated helpers: the kind of code most modules hold.
      for (int h = 0; h < 5; ++h)
        body += "\n\ndef helper_" + std::to_string(h) + "(x, y=" + std::to_string(h) +
                "):\n    total = 0\n    for i in range(x):\n        total += i * y\n    return total\n";
      files.push_back({pkg + "/step" + std::to_string(i) + ".py", body});
    }
    files.push_back({"train_" + std::to_string(c) + ".py",
                     "from trl import SFTTrainer\nfrom " + pkg +
                         ".step0 import build\n\n\ndef main():\n    args = build(output_dir='out')\n"
                         "    SFTTrainer(model='m', args=args)\n\n\nif __name__ == '__main__':\n    main()\n"});
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  const int modules = argc > 1 ? std::atoi(argv[1]) : 500;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  trl::Project project = trl::make_project("/bench", synthetic(modules));
  const trl::Knowledge& k = trl::Knowledge::get();
  std::vector<double> ms;
  std::size_t runs = 0, packing = 0;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    auto built = trl::build_runs(project, k);
    auto t1 = std::chrono::steady_clock::now();
    runs = built.size();
    packing = 0;
    for (const auto& run : built)
      packing += run.arg("packing").truth() == trl::Truth::True && run.cp_size.min_int() == 2;
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  // Half of the chains pack: `packing_runs` checks the dataflow reached the end of every chain.
  std::printf(
      "modules=%zu runs=%zu packing_runs=%zu median_ms=%.2f min_ms=%.2f max_ms=%.2f us_per_module=%.1f "
      "peak_rss_mb=%.1f\n",
      project.sources.size(), runs, packing, ms[ms.size() / 2], ms.front(), ms.back(),
      1000.0 * ms[ms.size() / 2] / static_cast<double>(project.sources.size()),
      static_cast<double>(usage.ru_maxrss) / 1024.0);
  return 0;
}
