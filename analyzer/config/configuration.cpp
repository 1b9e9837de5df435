#include "analyzer/config/configuration.hpp"

#include <filesystem>
#include <optional>
#include <ostream>

#include "analyzer/config/config_file.hpp"
#include "rules/registry.hpp"

namespace fs = std::filesystem;

namespace trl {

namespace {

constexpr unsigned kNames = sizeof(kConfigFileNames) / sizeof(kConfigFileNames[0]);
constexpr unsigned kGitBit = 1u << kNames;
constexpr unsigned kGitAskBit = kGitBit << 1;  // `.git` is a link: ask whether it exists
constexpr unsigned kAll = (kGitBit << 1) - 1;  // nothing known: ask about every name

// `present`: the names the folder may hold (bits as Configuration::listed_); the others are not
// asked about.
std::optional<std::string> config_in(const fs::path& dir, unsigned present = kAll) {
  for (unsigned i = 0; i < kNames; ++i) {
    if (!(present & (1u << i))) continue;
    const std::string candidate = (dir / kConfigFileNames[i]).string();
    if (is_config_file(candidate)) return candidate;
  }
  return std::nullopt;
}

bool is_repository_root(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / ".git", ec);
}

bool has_command_line_selection(const SelectionLayer& l) {
  return l.select || !l.extend_select.empty() || !l.ignore.empty();
}

}  // namespace

Configuration::Configuration(ConfigOptions options) : options_(std::move(options)) {
  const SelectionLayer& cli = options_.command_line;
  if (cli.select)
    for (const auto& s : *cli.select) check_selector(s, nullptr);
  for (const auto& s : cli.extend_select) check_selector(s, nullptr);
  for (const auto& s : cli.ignore) check_selector(s, nullptr);
  if (options_.config_file) {
    std::error_code ec;
    fixed_ = settings_of_file(fs::absolute(*options_.config_file, ec).lexically_normal().string());
  } else if (options_.isolated) {
    fixed_ = std::make_shared<Settings>();
    apply_command_line(*fixed_);
  }
}

void Configuration::apply_command_line(Settings& s) const {
  if (has_command_line_selection(options_.command_line)) s.selection.push_back(options_.command_line);
  if (options_.exclude) {
    s.exclude.clear();
    for (const auto& g : *options_.exclude) s.exclude.push_back(PathPattern{options_.exclude_base, g});
  }
  for (const auto& g : options_.extend_exclude) s.exclude.push_back(PathPattern{options_.exclude_base, g});
}

std::shared_ptr<Settings> Configuration::settings_of_file(const std::string& config_path) {
  auto it = by_file_.find(config_path);
  if (it != by_file_.end()) return it->second;
  auto s = std::make_shared<Settings>(load_config_file(config_path));
  apply_command_line(*s);
  by_file_.emplace(config_path, s);
  return s;
}

std::optional<std::string> Configuration::config_file_for_dir(const std::string& abs_dir) {
  if (options_.config_file || options_.isolated)
    return fixed_->files.empty() ? std::nullopt : std::optional(fixed_->files.front());
  auto it = file_of_dir_.find(abs_dir);
  if (it != file_of_dir_.end()) return it->second;
  std::optional<std::string> found;
  const fs::path dir(abs_dir);
  const auto listed = listed_.find(abs_dir);
  const unsigned present = listed == listed_.end() ? kAll : listed->second;
  if (auto here = config_in(dir, present)) {
    found = here;
  } else if (!(listed == listed_.end() || (present & kGitAskBit) ? is_repository_root(dir)
                                                                 : (present & kGitBit) != 0) &&
             dir.has_parent_path() && dir.parent_path() != dir) {
    found = config_file_for_dir(dir.parent_path().string());
  }
  file_of_dir_[abs_dir] = found;
  return found;
}

const Settings& Configuration::for_dir(const std::string& abs_dir) {
  if (fixed_) return *fixed_;
  auto it = by_dir_.find(abs_dir);
  if (it != by_dir_.end()) return *it->second;
  std::shared_ptr<Settings> s;
  if (auto file = config_file_for_dir(abs_dir)) {
    s = settings_of_file(*file);
  } else {
    auto d = by_file_.find("");
    if (d == by_file_.end()) {
      auto defaults = std::make_shared<Settings>();
      apply_command_line(*defaults);
      d = by_file_.emplace("", defaults).first;
    }
    s = d->second;
  }
  by_dir_[abs_dir] = s;
  return *s;
}

const Settings& Configuration::for_path(const std::string& abs_path) {
  std::error_code ec;
  fs::path p = fs::path(abs_path).lexically_normal();
  if (fs::is_directory(p, ec)) return for_dir(p.string());
  return for_dir(p.parent_path().string());
}

const Settings& Configuration::for_file(const std::string& abs_path) {
  // Discovery gives normalised absolute paths: their folder is the text before the last slash.
  // Anything that could need normalising (`.`, `..`, a doubled slash) takes the general way.
  const std::size_t slash = abs_path.rfind('/');
  if (slash != std::string::npos && slash > 0 && abs_path.front() == '/' && abs_path.find("/.") == std::string::npos &&
      abs_path.find("//") == std::string::npos)
    return for_dir(abs_path.substr(0, slash));
  return for_dir(fs::path(abs_path).lexically_normal().parent_path().string());
}

const Settings& Configuration::for_folder(const std::string& abs_dir) {
  if (!abs_dir.empty() && abs_dir.front() == '/' && abs_dir.find("/.") == std::string::npos &&
      abs_dir.find("//") == std::string::npos && (abs_dir.size() == 1 || abs_dir.back() != '/'))
    return for_dir(abs_dir);
  return for_dir(fs::path(abs_dir).lexically_normal().string());
}

void Configuration::note_folder(const std::string& abs_dir, const std::vector<ListedName>& names) {
  unsigned present = 0;
  for (const auto& [n, unsure] : names) {
    if (n == ".git") present |= unsure ? kGitAskBit : kGitBit;
    // A listed configuration name is checked by path anyway (is_config_file follows a link).
    for (unsigned i = 0; i < kNames; ++i)
      if (n == kConfigFileNames[i]) present |= 1u << i;
  }
  listed_[abs_dir] = present;
}

std::vector<const Settings*> Configuration::resolved() const {
  std::vector<const Settings*> out;
  if (fixed_) out.push_back(fixed_.get());
  for (const auto& [path, s] : by_file_) out.push_back(s.get());
  return out;
}

bool is_project_root(const std::string& abs_dir) {
  std::error_code ec;
  const fs::path dir(abs_dir);
  if (fs::exists(dir / ".git", ec)) return true;  // a folder, or a file (a worktree's link)
  for (const char* name : {"pyproject.toml", "setup.py", "setup.cfg"})
    if (fs::is_regular_file(dir / name, ec)) return true;
  return config_in(dir).has_value();
}

std::string project_root_of(const std::string& abs_path) {
  std::error_code ec;
  fs::path p = fs::path(abs_path).lexically_normal();
  if (p.has_relative_path() && p.filename().empty()) p = p.parent_path();  // a trailing slash
  const fs::path start = fs::is_directory(p, ec) ? p : p.parent_path();
  // The nearest folder at or above the path that marks a project: `.git`, a trl-lint
  // configuration, `pyproject.toml`, `setup.py` or `setup.cfg`.
  for (fs::path dir = start;; dir = dir.parent_path()) {
    if (is_project_root(dir.string())) return dir.string();
    if (!dir.has_parent_path() || dir.parent_path() == dir) break;
  }
  // None: the working folder when the path is inside it (`trl-lint sub/` and `trl-lint .` are one
  // analysis), else the path's own folder.
  const fs::path cwd = fs::current_path(ec).lexically_normal();
  if (!ec && !cwd.empty()) {
    const auto rel = start.lexically_relative(cwd);
    if (!rel.empty() && rel.native().rfind("..", 0) != 0) return cwd.string();
  }
  return start.string();
}

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

void list(std::ostream& out, const std::vector<std::string>& items) {
  out << '[';
  for (std::size_t i = 0; i < items.size(); ++i) out << (i ? ", " : "") << items[i];
  out << "]";
}

}  // namespace

void print_settings(std::ostream& out, const Settings& s, const std::string& for_path) {
  out << "# settings for " << for_path << '\n';
  out << "config-files:";
  if (s.files.empty()) out << " []  # none found: defaults";
  out << '\n';
  for (const auto& f : s.files) out << "  - " << f << '\n';
  std::vector<std::string> enabled, disabled;
  for (const auto& code : known_codes()) (s.enabled(code) ? enabled : disabled).push_back(code);
  out << "enabled-rules: ";
  list(out, enabled);
  out << "\ndisabled-rules: ";
  list(out, disabled);
  out << "\nseverity:";
  bool any = false;
  for (const auto& code : known_codes()) {
    const Rule* r = find_rule(code);
    if (!r) continue;
    const RuleInfo* info = &r->info();
    const Severity sev = s.severity_of(code, info->severity);
    if (sev == info->severity) continue;
    out << "\n  " << code << ": " << to_string(sev) << "  # default " << to_string(info->severity);
    any = true;
  }
  out << (any ? "\n" : " {}\n");
  out << "per-file-ignores:" << (s.per_file_ignores.empty() ? " {}" : "") << '\n';
  for (const auto& p : s.per_file_ignores) {
    out << "  " << quoted(p.pattern.glob) << ": ";
    list(out, p.codes);
    out << "  # relative to " << p.pattern.base_dir << '\n';
  }
  out << "exclude:" << (s.exclude.empty() ? " []" : "") << '\n';
  for (const auto& p : s.exclude) out << "  - " << quoted(p.glob) << "  # relative to " << p.base_dir << '\n';
  out << "target-versions:"
      << (s.target_versions.empty() ? " {}  # from the project's pins, else the newest known" : "") << '\n';
  for (const auto& [lib, v] : s.target_versions) out << "  " << lib << ": " << quoted(v.value) << '\n';
  if (s.cache_dir) out << "cache-dir: " << quoted(s.cache_dir->value) << '\n';
  out << "src:"
      << (s.src.empty() ? " []  # imports resolve in the file's folder, its sub-project and the root (and their src/)"
                        : "")
      << '\n';
  for (const auto& f : s.src) out << "  - " << quoted(f.value) << '\n';
  out << "fail-on: " << to_string(s.fail_on ? s.fail_on->value : Severity::Info)
      << (s.fail_on ? "" : "  # default: any finding fails") << '\n';
  out << "runs:" << (s.runs.empty() ? " []" : "") << '\n';
  for (const auto& r : s.runs) {
    out << "  - name: " << quoted(r.name.empty() ? "(unnamed)" : r.name) << '\n';
    out << "    script: " << quoted(r.script->value) << '\n';
    if (r.config) out << "    config: " << quoted(r.config->value) << '\n';
    if (r.accelerate_config) out << "    accelerate-config: " << quoted(r.accelerate_config->value) << '\n';
    if (!r.args.empty()) {
      out << "    args: [";
      for (std::size_t i = 0; i < r.args.size(); ++i) out << (i ? ", " : "") << quoted(r.args[i].value);
      out << "]\n";
    }
    for (const auto& [k, v] : r.env) out << "    env." << k.value << ": " << quoted(v.value) << '\n';
    out << "    # paths relative to " << r.base_dir << '\n';
  }
}

}  // namespace trl
