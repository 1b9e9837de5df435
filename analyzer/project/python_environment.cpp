#include "analyzer/project/python_environment.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>

namespace fs = std::filesystem;

namespace trl {

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// PEP 503: lower case, each run of `-`, `_` and `.` as one `-`.
std::string normalise_name(std::string_view name) {
  std::string out;
  bool sep = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      sep = true;
      continue;
    }
    if (sep && !out.empty()) out += '-';
    sep = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// The head of a metadata file: the headers end at the first blank line, well within this.
std::string read_head(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::string text(16 * 1024, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

// The site-packages folders of an environment: `lib/pythonX.Y/site-packages` (venv, virtualenv,
// uv, conda), `dist-packages` (Debian's interpreters), `Lib/site-packages` (Windows).
std::vector<fs::path> site_folders(const fs::path& prefix) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (fs::is_directory(prefix / "Lib" / "site-packages", ec)) out.push_back(prefix / "Lib" / "site-packages");
  std::vector<fs::path> pythons;
  for (fs::directory_iterator lib(prefix / "lib", ec), end; !ec && lib != end; lib.increment(ec))
    if (lib->path().filename().string().rfind("python", 0) == 0) pythons.push_back(lib->path());
  std::sort(pythons.begin(), pythons.end());
  for (const auto& p : pythons)
    for (const char* leaf : {"site-packages", "dist-packages"})
      if (fs::is_directory(p / leaf, ec)) out.push_back(p / leaf);
  return out;
}

bool is_environment(const fs::path& prefix) {
  std::error_code ec;
  return !prefix.empty() && fs::is_directory(prefix, ec) && !site_folders(prefix).empty();
}

std::string shown(const fs::path& path, const std::string& root) {
  std::string p = path.lexically_normal().generic_string();
  if (!root.empty() && p.size() > root.size() && p.compare(0, root.size(), root) == 0 && p[root.size()] == '/')
    return p.substr(root.size() + 1);
  return p;
}

void read_libraries(PythonEnvironment& env, const std::string& root) {
  static const std::set<std::string> wanted{"trl", "transformers", "accelerate"};
  for (const fs::path& site : site_folders(env.prefix)) {
    std::vector<fs::path> entries;
    std::error_code ec;
    for (fs::directory_iterator e(site, ec), end; !ec && e != end; e.increment(ec)) {
      const std::string name = e->path().filename().string();
      if (ends_with(name, ".dist-info") || ends_with(name, ".egg-info")) entries.push_back(e->path());
    }
    std::sort(entries.begin(), entries.end());  // directory order is not stable
    for (const fs::path& entry : entries) {
      const std::string folder = entry.filename().string();
      const bool dist = ends_with(folder, ".dist-info");
      // The folder's own name first (`trl-0.21.0.dist-info`): enough to skip the hundreds of
      // other distributions without opening their metadata.
      const std::string stem = folder.substr(0, folder.size() - (dist ? 10 : 9));
      const auto dash = stem.find('-');
      std::string name = normalise_name(stem.substr(0, dash));
      if (!wanted.count(name)) continue;
      std::string version = dash == std::string::npos ? "" : stem.substr(dash + 1);
      if (!dist) version = version.substr(0, version.find('-'));  // `trl-0.21.0-py3.11.egg-info`
      // The metadata says it exactly (the folder name may be normalised differently).
      std::error_code fe;
      const fs::path meta = entry / (dist ? "METADATA" : "PKG-INFO");
      if (fs::is_regular_file(meta, fe)) {
        auto [n, v] = parse_distribution_metadata(read_head(meta));
        if (!n.empty()) name = n;
        if (!v.empty()) version = v;
      }
      if (!wanted.count(name) || version.empty() || !std::isdigit(static_cast<unsigned char>(version[0]))) continue;
      auto [it, fresh] = env.libraries.try_emplace(name);
      InstalledLibrary& lib = it->second;
      if (fresh) {
        lib =
            InstalledLibrary{version, shown(entry, root), env.chosen, site.lexically_normal().generic_string(), false};
      } else if (lib.version != version) {
        lib.ambiguous = true;
        lib.where += ", " + shown(entry, root);
      }
    }
  }
}

}  // namespace

bool is_python_environment(const std::string& prefix) {
  return is_environment(prefix);
}

EnvironmentHints EnvironmentHints::from_process(const std::string& python_option) {
  EnvironmentHints h;
  if (!python_option.empty()) {
    std::error_code ec;
    h.python = fs::absolute(python_option, ec).lexically_normal().generic_string();
  }
  if (const char* v = std::getenv("VIRTUAL_ENV")) h.virtual_env = v;
  if (const char* c = std::getenv("CONDA_PREFIX")) h.conda_prefix = c;
  return h;
}

std::string environment_of_python_option(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::path(path).lexically_normal();
  if (fs::is_directory(p, ec)) return p.generic_string();
  if (!fs::exists(p, ec)) return "";
  // `env/bin/python` is usually a symbolic link to the base interpreter: the link's own folder
  // names the environment, so it is not followed.
  const fs::path dir = p.parent_path();
  const std::string leaf = dir.filename().string();
  if (leaf == "bin" || leaf == "Scripts") return dir.parent_path().generic_string();
  return "";
}

std::pair<std::string, std::string> parse_distribution_metadata(const std::string& text) {
  std::string name, version;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string_view line(text.data() + pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // the headers end; the description follows
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    if (key == "Name" && name.empty()) name = normalise_name(trim(line.substr(colon + 1)));
    if (key == "Version" && version.empty()) version = trim(line.substr(colon + 1));
  }
  return {name, version};
}

const PythonEnvironment& python_environment(const std::string& root, const EnvironmentHints& hints) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<PythonEnvironment>> cache;
  const std::string key = root + '\0' + hints.python + '\0' + hints.virtual_env + '\0' + hints.conda_prefix;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[key];
  if (slot) return *slot;
  slot = std::make_unique<PythonEnvironment>();
  PythonEnvironment& env = *slot;
  auto choose = [&](const std::string& prefix, const char* how) {
    if (!env.prefix.empty() || prefix.empty() || !is_environment(prefix)) return;
    env.prefix = fs::path(prefix).lexically_normal().generic_string();
    env.chosen = how;
  };
  if (!hints.python.empty()) choose(environment_of_python_option(hints.python), "--python");
  choose(hints.virtual_env, "$VIRTUAL_ENV");
  if (!root.empty()) {
    choose((fs::path(root) / ".venv").generic_string(), ".venv");
    choose((fs::path(root) / "venv").generic_string(), "venv");
  }
  choose(hints.conda_prefix, "$CONDA_PREFIX");
  if (!env.prefix.empty()) read_libraries(env, root);
  return env;
}

}  // namespace trl
