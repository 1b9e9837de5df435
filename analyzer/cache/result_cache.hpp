// The result cache (like ruff's `.ruff_cache`): the findings of a whole analysis, stored under a
// key made of everything they depend on, so that a second run over an unchanged repository skips
// parsing, extraction, run building and the rules.
//
// The key: the tool build (version, and the size and modification time of the executable, so a
// rebuilt binary never reads an older binary's results), the embedded knowledge's hash, every
// option that changes findings (selection, --config/--isolated, --max-file-size, the pre-filter
// switch, the working folder and the paths given), the configuration files that govern each
// folder with their contents, and every file: its path, kind, reading problems and content hash.
// The one exception is a Python file the pre-filter defers (no training name, no trl-lint
// comment): only its path and the fact that it was deferred count, because its text takes part
// in no run unless something reaches it. The deferred files that were reached after all are
// recorded with their content hashes in the entry and checked on lookup. So an edit to an
// ordinary module nobody imports keeps the cache valid, while an edit to any file of any run
// invalidates it.
//
// One entry per invocation shape (slot: hash of options and working folder), replaced on every
// miss. Entries are written atomically (a temporary file renamed into place) and carry a checksum;
// a missing, truncated, corrupt or foreign entry is a miss, never an error. Failing to write the
// cache (read-only tree) is silent: the results are the same, only slower.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/config/configuration.hpp"
#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/project/project.hpp"

namespace trl::cache {

// The default folder name, at the project root (discovery never descends into it).
inline constexpr const char* kDefaultDirName = ".trl-lint_cache";

class ResultCache {
 public:
  // `dir`: the cache folder (absolute). `invocation`: every option that changes findings, as text.
  ResultCache(std::string dir, std::string invocation);

  // Computes the key of a project as read_project left it (texts read, nothing parsed yet).
  // Resolves the configuration of each folder (may throw ConfigError, as the analysis would).
  void prepare(const Project& project, Configuration& config);
  // The findings stored for this key, or nothing (miss, or a damaged entry).
  std::optional<std::vector<Diagnostic>> lookup(const Project& project) const;
  // Stores the findings of the analysis of `project` (after extraction). False when the entry
  // could not be written; the cache is then simply not used.
  bool store(const Project& project, const std::vector<Diagnostic>& diags) const;

  // The entry file of this invocation (for tests and `--show-settings`-like diagnostics).
  std::string entry_path() const;

 private:
  std::string dir_;
  std::string invocation_;
  std::uint64_t digest_[2] = {0, 0};
  std::vector<char> deferred_;  // per file: deferred by the pre-filter when read
};

// A text that identifies this executable's build: version, and size and modification time of
// /proc/self/exe (empty parts when unavailable).
std::string build_identity();

// Encoding of findings (exposed for tests). decode returns nothing for damaged data or spans
// that do not fit the project's files.
std::string encode_diagnostics(const std::vector<Diagnostic>& diags);
std::optional<std::vector<Diagnostic>> decode_diagnostics(std::string_view data, const Project& project);

}  // namespace trl::cache
