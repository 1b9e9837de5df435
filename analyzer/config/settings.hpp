// The settings of one trl-lint configuration file (`.trl-lint.yaml` or `[tool.trl-lint]` in
// pyproject.toml) after `extend` and the command line are applied: which rules run, at which
// severity, which files are skipped, target library versions and explicitly declared runs.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/discover/gitignore.hpp"
#include "analyzer/source/source_file.hpp"

namespace trl {

// Where a value was written in a configuration file (0-based line and byte column).
struct ConfigLocation {
  std::string path;  // absolute
  Point start;
  Point stop;
};

template <typename T>
struct Located {
  T value;
  ConfigLocation where;
};

// An invalid configuration: reported as `path:line:col: message`, exit code 2.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(const ConfigLocation& where, const std::string& message);
  explicit ConfigError(const std::string& message) : std::runtime_error(message) {}
};

// One step of rule selection. Steps apply in order (extended config first, the command line
// last): `select` replaces the enabled set, `extend-select` adds to it, `ignore` removes.
struct SelectionLayer {
  std::optional<std::vector<std::string>> select;
  std::vector<std::string> extend_select;
  std::vector<std::string> ignore;
};

// A glob as written in a config file, relative to that file's folder.
struct PathPattern {
  PathPattern(std::string dir, std::string pattern);
  std::string base_dir;  // absolute folder of the config file that wrote it
  std::string glob;      // as written
  // True when `abs_path` (a file or folder) or one of its folders below base_dir matches.
  bool matches(const std::string& abs_path) const;

 private:
  // The glob read once (without a trailing `/` or a leading `./`): discovery asks about every
  // file and folder it meets.
  glob_detail::Glob compiled_;
  bool anchored_ = false;  // holds a `/`: matched against the path below base_dir, not a name
};

struct PerFileIgnore {
  PathPattern pattern;
  std::vector<std::string> codes;  // selectors: codes, prefixes, names or ALL
};

// An entry of `runs:`; paths are relative to base_dir.
struct DeclaredRunSpec {
  std::string name;
  std::string base_dir;
  ConfigLocation where;  // the entry itself
  std::optional<Located<std::string>> script;
  std::optional<Located<std::string>> config;
  std::optional<Located<std::string>> accelerate_config;
  std::vector<Located<std::string>> args;
  std::vector<std::pair<Located<std::string>, Located<std::string>>> env;
};

struct Settings {
  std::vector<std::string> files;  // the config file and the files it extends, nearest first; empty: defaults
  std::vector<SelectionLayer> selection;
  std::map<std::string, Severity> severity;  // selector -> severity; the longest matching selector wins
  std::vector<PerFileIgnore> per_file_ignores;
  std::vector<PathPattern> exclude;
  std::map<std::string, Located<std::string>> target_versions;  // "trl" -> "0.19.1"
  std::vector<DeclaredRunSpec> runs;
  std::optional<Located<std::string>> cache_dir;  // `cache-dir:`, absolute (relative to the file's folder)
  // `src:` folders where Python imports also resolve (as ruff's `src`), absolute (relative to the
  // file's folder), after the importing file's folder and sub-project, before the project root.
  std::vector<Located<std::string>> src;
  // `fail-on:` the least severe finding that makes the exit code 1 (`--fail-on` wins); unset: info,
  // so that any finding fails.
  std::optional<Located<Severity>> fail_on;

  bool enabled(const std::string& code) const;
  Severity severity_of(const std::string& code, Severity default_severity) const;
  bool ignored_in(const std::string& code, const std::string& abs_path) const;
  bool excluded(const std::string& abs_path) const;
};

// True when `selector` (a code prefix such as TRL1, a code, a rule name, or ALL) covers `code`.
bool selector_matches(const std::string& selector, const std::string& code);

// Every code trl-lint knows (rules and file problems), for validation and suggestions.
const std::vector<std::string>& known_codes();

// Throws ConfigError (with a "did you mean" suggestion) when `selector` covers no known rule.
void check_selector(const std::string& selector, const ConfigLocation* where);

// The closest candidate by edit distance, when it is close enough to be a likely typo.
std::optional<std::string> did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace trl
