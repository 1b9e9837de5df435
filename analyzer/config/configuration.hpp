// Finds the settings that apply to each path: the closest configuration file in the path's
// folder or a folder above it (not above the repository root, the folder holding `.git`), like
// ruff. `--config FILE` applies one file everywhere; `--isolated` ignores every file. The
// command line's selection overrides whatever the files say.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/config/settings.hpp"
#include "analyzer/discover/discover.hpp"

namespace trl {

struct ConfigOptions {
  bool isolated = false;
  std::optional<std::string> config_file;  // --config
  SelectionLayer command_line;             // --select / --extend-select / --ignore
  // --exclude replaces every configuration's `exclude`; --extend-exclude adds to it. Globs as
  // written, relative to `exclude_base` (the working folder).
  std::optional<std::vector<std::string>> exclude;
  std::vector<std::string> extend_exclude;
  std::string exclude_base;
};

class Configuration {
 public:
  // Throws ConfigError for an invalid --config file or command-line selector.
  explicit Configuration(ConfigOptions options);

  // The settings for a file or folder (absolute path). Throws ConfigError for an invalid file.
  const Settings& for_path(const std::string& abs_path);
  // The settings for a file known to be one (absolute path): for_path without asking the file
  // system whether the path is a folder (one stat per file made that 12% of an analysis of
  // 20,000 files).
  const Settings& for_file(const std::string& abs_path);
  // The settings for a folder known to be one (absolute path), likewise without a stat.
  const Settings& for_folder(const std::string& abs_dir);
  // The configuration file that governs `abs_dir`, if any (after --config / --isolated).
  std::optional<std::string> config_file_for_dir(const std::string& abs_dir);

  // What a whole listing of `abs_dir` (absolute, normal) showed: the configuration file names and
  // `.git` it holds. The lookup for that folder then asks the file system only about the names it
  // holds (each folder's five candidate names and `.git` were most of discovery's system calls);
  // a `.git` that is a link is asked about by path. `names` need not be sorted. A folder already
  // looked up keeps its answer.
  void note_folder(const std::string& abs_dir, const std::vector<ListedName>& names);

  // Every distinct Settings resolved so far.
  std::vector<const Settings*> resolved() const;

 private:
  const Settings& for_dir(const std::string& abs_dir);
  std::shared_ptr<Settings> settings_of_file(const std::string& config_path);
  // Adds the command line's selection step and exclude globs to settings read from a file.
  void apply_command_line(Settings& s) const;

  ConfigOptions options_;
  std::shared_ptr<Settings> fixed_;  // --config or --isolated: the same settings everywhere
  std::map<std::string, std::shared_ptr<Settings>> by_dir_;
  std::map<std::string, std::shared_ptr<Settings>> by_file_;
  std::map<std::string, std::optional<std::string>> file_of_dir_;
  // note_folder: bit i for kConfigFileNames[i]; kGitBit for `.git`, kGitAskBit for a `.git`
  // link (configuration.cpp).
  std::map<std::string, unsigned, std::less<>> listed_;
};

// Whether a folder marks a project: it holds `.git` (a folder, or a worktree's link file), a
// trl-lint configuration file, `pyproject.toml`, `setup.py` or `setup.cfg`.
bool is_project_root(const std::string& abs_dir);
// The project a path (absolute: a file or a folder) belongs to, which is analysed whole whatever
// path is named: the nearest folder at or above it that marks a project (is_project_root); when
// none does, the working folder if the path is inside it, else the path's own folder.
std::string project_root_of(const std::string& abs_path);

// `trl-lint config --show`: the resolved settings, as YAML.
void print_settings(std::ostream& out, const Settings& settings, const std::string& for_path);

}  // namespace trl
