// The command line the benchmark's walking programs share: `[--threads N] FOLDER`.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

struct BenchArgs {
  unsigned threads = 1;
  const char* folder = nullptr;
};

// The arguments, or nothing after a usage line on stderr naming `program`.
inline std::optional<BenchArgs> parse_bench_args(int argc, char** argv, const char* program) {
  BenchArgs a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      a.threads = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (!a.folder && arg.rfind("--", 0) != 0) {
      a.folder = argv[i];
    } else {
      a.folder = nullptr;
      break;
    }
  }
  if (!a.folder || a.threads == 0 || a.threads > 256) {
    std::fprintf(stderr, "usage: %s [--threads N] FOLDER\n", program);
    return std::nullopt;
  }
  return a;
}
