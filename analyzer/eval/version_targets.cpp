#include "analyzer/eval/version_targets.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/project/python_environment.hpp"
#include "analyzer/util/clean_path.hpp"

namespace fs = std::filesystem;

namespace trl {

namespace {

struct Parsed {
  std::vector<long> release;
  bool pre = false;  // dev/rc/a/b suffix
};

Parsed parse_version(std::string_view v) {
  Parsed p;
  if (!v.empty() && (v[0] == 'v' || v[0] == 'V')) v.remove_prefix(1);
  std::size_t i = 0;
  while (i < v.size()) {
    if (!std::isdigit(static_cast<unsigned char>(v[i]))) {
      p.pre = true;
      break;
    }
    long n = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
      n = n * 10 + (v[i] - '0');
      if (n > 1000000000L) n = 1000000000L;
      ++i;
    }
    p.release.push_back(n);
    if (i < v.size() && v[i] == '.' && i + 1 < v.size() && std::isdigit(static_cast<unsigned char>(v[i + 1]))) {
      ++i;
      continue;
    }
    if (i < v.size() && !(v[i] == '+')) p.pre = true;
    break;
  }
  return p;
}

int compare_release(const std::vector<long>& a, const std::vector<long>& b) {
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    long x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

bool clause_ok(std::string_view version, std::string_view clause) {
  std::size_t op_len = 0;
  while (op_len < clause.size() && std::string_view("=<>!~").find(clause[op_len]) != std::string_view::npos) ++op_len;
  std::string_view op = clause.substr(0, op_len);
  std::string_view target = clause.substr(op_len);
  if (target.empty()) return true;
  const bool wildcard = target.size() >= 2 && target.substr(target.size() - 2) == ".*";
  if (wildcard) target.remove_suffix(2);
  const Parsed v = parse_version(version), t = parse_version(target);
  const int c = compare_release(v.release, t.release);
  if (op == "==" || op == "===" || op.empty()) {
    if (wildcard) {
      for (std::size_t i = 0; i < t.release.size(); ++i)
        if ((i < v.release.size() ? v.release[i] : 0) != t.release[i]) return false;
      return true;
    }
    return c == 0;
  }
  if (op == "!=") {
    if (wildcard) return !clause_ok(version, std::string("==") + std::string(target) + ".*");
    return c != 0;
  }
  if (op == ">=") return c >= 0;
  if (op == "<=") return c <= 0;
  if (op == ">") return c > 0;
  if (op == "<") return c < 0;
  if (op == "~=") {
    // ~=X.Y.Z means >=X.Y.Z, ==X.Y.*
    if (c < 0 || t.release.size() < 2) return c >= 0;
    for (std::size_t i = 0; i + 1 < t.release.size(); ++i)
      if ((i < v.release.size() ? v.release[i] : 0) != t.release[i]) return false;
    return true;
  }
  return false;
}

std::vector<std::string_view> clauses(std::string_view spec) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= spec.size()) {
    auto comma = spec.find(',', start);
    std::string_view c = spec.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (!c.empty()) out.push_back(c);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string display_name(std::string_view lib) {
  if (lib == "trl") return "TRL";
  return std::string(lib);
}

}  // namespace

std::string VersionTarget::describe() const {
  std::string out = display_name(library) + " " + (version ? *version : std::string("(unknown)"));
  if (!why.empty()) out += " (" + why + ")";
  return out;
}

const VersionTarget& VersionTargets::of(std::string_view library) const {
  if (library == "transformers") return transformers;
  if (library == "accelerate") return accelerate;
  return trl;
}

int compare_versions(std::string_view a, std::string_view b) {
  const Parsed x = parse_version(a), y = parse_version(b);
  int c = compare_release(x.release, y.release);
  if (c != 0) return c;
  if (x.pre != y.pre) return x.pre ? -1 : 1;
  return 0;
}

bool satisfies(std::string_view version, std::string_view spec) {
  for (auto c : clauses(spec))
    if (!clause_ok(version, c)) return false;
  return true;
}

std::optional<std::string> resolve_spec(std::string_view spec, const Knowledge& knowledge, std::string_view library) {
  for (auto c : clauses(spec)) {
    if ((c.rfind("==", 0) == 0 || c.rfind("===", 0) == 0) && c.find('*') == std::string_view::npos) {
      std::string_view v = c.substr(c.rfind('=') + 1);
      if (!v.empty()) return std::string(v);
    }
  }
  const LibraryReleases* lib = knowledge.library(library);
  if (!lib) return std::nullopt;
  for (auto it = lib->releases.rbegin(); it != lib->releases.rend(); ++it)
    if (satisfies(*it, spec)) return *it;
  return std::nullopt;
}

std::optional<std::pair<std::string, std::string>> parse_target_option(std::string_view text) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 >= text.size()) return std::nullopt;
  std::string lib(text.substr(0, eq));
  for (auto& c : lib) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lib != "trl" && lib != "transformers" && lib != "accelerate") return std::nullopt;
  std::string version(text.substr(eq + 1));
  // `trl=0.19.1`, and the pip spelling `trl==0.19.1`.
  while (!version.empty() && version.front() == '=') version.erase(0, 1);
  if (version.empty() || !std::isdigit(static_cast<unsigned char>(version[0]))) return std::nullopt;
  return std::make_pair(lib, version);
}

namespace {

thread_local VersionTargetsMemo* active_memo = nullptr;

}  // namespace

std::vector<std::string> installed_libraries(const Project& project, const std::string& root) {
  const PythonEnvironment& env = python_environment(root, project.environment_hints);
  std::vector<std::string> out{env.chosen, env.prefix};
  for (const auto& [name, installed] : env.libraries) {
    out.push_back(name);
    out.push_back(installed.version);
    out.push_back(installed.where);
    out.push_back(installed.ambiguous ? "ambiguous" : "");
  }
  return out;
}

namespace {

// Folder of each dependency file.
std::vector<std::pair<std::string, FileId>> find_pin_files(const Project& project) {
  std::vector<std::pair<std::string, FileId>> pin_files;
  for (FileId id = 0; id < project.facts.size() && id < project.sources.size(); ++id)
    if (!project.facts[id].pins.empty() || !project.facts[id].pin_includes.empty())
      pin_files.emplace_back(fs::path(project.sources.get(id).abs_path).parent_path().string(), id);
  return pin_files;
}

VersionTargets compute_targets(const Project& project, FileId file, const Knowledge& knowledge,
                               const std::vector<std::pair<std::string, FileId>>& pin_files);

}  // namespace

VersionTargetsMemo::VersionTargetsMemo(const Project& project) : project_(project), outer_(active_memo) {
  // Inside a memo for the same project this one stays idle: the outer one keeps serving.
  installed_ = !outer_ || &outer_->project_ != &project;
  if (installed_) active_memo = this;
}

VersionTargetsMemo::~VersionTargetsMemo() {
  if (installed_) active_memo = outer_;
}

VersionTargets version_targets(const Project& project, FileId file, const Knowledge& knowledge) {
  VersionTargetsMemo* memo = active_memo;
  if (!memo || &memo->project_ != &project) return compute_targets(project, file, knowledge, find_pin_files(project));
  if (memo->knowledge_ != &knowledge) {
    memo->results_.clear();
    memo->knowledge_ = &knowledge;
  }
  if (auto it = memo->results_.find(file); it != memo->results_.end()) return it->second;
  if (!memo->pins_found_) {
    memo->pin_files_ = find_pin_files(project);
    memo->pins_found_ = true;
  }
  return memo->results_.emplace(file, compute_targets(project, file, knowledge, memo->pin_files_)).first->second;
}

namespace {

// The folders from `path`'s own (its parent when `is_file`, else itself) up to `root`, on
// strings: the path arithmetic of compute_targets' general way showed at the open-r1 size. Only
// for absolute paths without `.` or `..` parts, doubled or trailing slashes (discovery's are),
// where both ways agree; false for anything else.
bool folder_chain(const std::string& path, bool is_file, const std::string& root, std::vector<std::string>& out) {
  if (!is_clean_abs_path(path) || !is_clean_abs_path(root)) return false;
  auto below_root = [&](const std::string& dir) {
    return root == "/" ||
           (dir.size() > root.size() && dir.compare(0, root.size(), root) == 0 && dir[root.size()] == '/');
  };
  std::string dir = is_file ? clean_parent(path) : path;
  for (int guard = 0; guard < 64; ++guard) {
    out.push_back(dir);
    if (dir == root || dir == "/" || !below_root(dir)) break;
    dir = clean_parent(dir);
  }
  return true;
}

// The pins of `library` in pin file `id`, and in the requirements files it includes (`-r`, `-c`,
// relative to the including file's folder, as pip reads them), 8 levels deep. `unread`: an include
// that is not a requirements file of the project (outside it, a URL, `${VAR}`, a name trl-lint
// does not read), which may pin anything.
void pins_of(const Project& project, FileId id, const std::string& library, std::vector<const PackagePin*>& out,
             bool& unread, int depth = 0, std::vector<FileId>* seen = nullptr) {
  std::vector<FileId> own;
  if (!seen) seen = &own;
  if (id >= project.facts.size() || depth > 8 || std::find(seen->begin(), seen->end(), id) != seen->end()) return;
  seen->push_back(id);
  for (const auto& p : project.facts[id].pins)
    if (p.package == library) out.push_back(&p);
  const fs::path folder = fs::path(project.sources.get(id).abs_path).parent_path();
  for (const auto& include : project.facts[id].pin_includes) {
    const FileId inc = include.find("://") != std::string::npos || include.find('$') != std::string::npos
                           ? kNoFile
                           : project.sources.find_abs((folder / include).lexically_normal().string());
    if (inc != kNoFile && project.sources.get(inc).kind == FileKind::Requirements)
      pins_of(project, inc, library, out, unread, depth + 1, seen);
    else
      unread = true;
  }
}

VersionTargets compute_targets(const Project& project, FileId file, const Knowledge& knowledge,
                               const std::vector<std::pair<std::string, FileId>>& pin_files) {
  VersionTargets out;
  // Folders from the file's own up to the project root.
  std::vector<std::string> folders;
  const std::string& start = file != kNoFile && file < project.sources.size() ? project.sources.get(file).abs_path : "";
  // A file of one of several projects read together stops at its own project's folder.
  const std::string& own_root = start.empty() ? project.root : project.root_of(start);
  if (!folder_chain(start.empty() ? project.root : start, !start.empty(), own_root, folders)) {
    fs::path dir = !start.empty() ? fs::path(start).parent_path() : fs::path(own_root);
    const fs::path root = fs::path(own_root).lexically_normal();
    for (int guard = 0; guard < 64; ++guard) {
      folders.push_back(dir.lexically_normal().string());
      if (dir.lexically_normal() == root || !dir.has_parent_path() || dir.parent_path() == dir) break;
      // Stop at the project root; a file outside it (a named file) looks only at its own folder chain.
      auto rel = dir.lexically_normal().lexically_relative(root);
      if (rel.empty() || rel.native().rfind("..", 0) == 0) break;
      dir = dir.parent_path();
    }
  }
  const PythonEnvironment& environment = python_environment(own_root, project.environment_hints);
  for (VersionTarget* t : {&out.trl, &out.transformers, &out.accelerate}) {
    t->library = t == &out.trl ? "trl" : t == &out.transformers ? "transformers" : "accelerate";
    if (auto it = project.target_versions.find(t->library); it != project.target_versions.end()) {
      t->version = it->second;
      t->why = "set with --target-version";
      continue;
    }
    if (auto c = project.configured_target_versions.find(file); c != project.configured_target_versions.end())
      if (auto it = c->second.find(t->library); it != c->second.end()) {
        t->version = it->second;
        t->why = "set in the trl-lint configuration (target-versions)";
        continue;
      }
    // The project's Python environment says what is installed; a pin only what may be.
    if (auto it = environment.libraries.find(t->library); it != environment.libraries.end()) {
      const InstalledLibrary& i = it->second;
      if (!i.ambiguous) {
        t->version = i.version;
        // In the project's own .venv/ the path says it all; another environment is named.
        t->why = i.environment == ".venv" || i.environment == "venv" ? "installed: " + i.where
                 : i.environment == "--python" ? "installed in the --python environment: " + i.where
                                               : "installed in " + i.environment + ": " + i.where;
        t->installed_site = i.site;
        continue;
      }
    }
    bool decided = false;
    for (const auto& folder : folders) {
      std::vector<const PackagePin*> found;
      bool unread = false;
      for (const auto& [pin_dir, id] : pin_files)
        if (pin_dir == folder) pins_of(project, id, t->library, found, unread);
      if (found.empty() && unread) {
        // Requirements here include a file trl-lint does not read: it may pin the library.
        decided = true;
        t->why = "a requirements file of " + (folder.empty() ? std::string(".") : folder) +
                 " includes one trl-lint cannot read; version unknown";
        break;
      }
      if (found.empty()) continue;
      decided = true;
      // Extras, dependency groups and requirements under an environment marker narrow the
      // unconditional requirements where some version satisfies them all (a lock file exported
      // with markers, `trl==0.18.2 ; python_version >= "3.10"`, beside `trl>=0.18`); where none
      // does (`trl~=0.19.0` beside an extra's `trl==1.0.0`), the unconditional ones decide.
      auto spec_of = [&](bool with_optional) {
        std::string spec;
        for (const PackagePin* p : found)
          if ((with_optional || !p->optional) && !p->spec.empty()) spec += (spec.empty() ? "" : ",") + p->spec;
        return spec;
      };
      const bool any_main = std::any_of(found.begin(), found.end(), [](const PackagePin* p) { return !p->optional; });
      if (any_main) {
        const std::string all = spec_of(true);
        const auto together = resolve_spec(all, knowledge, t->library);
        if (!together || !satisfies(*together, all))
          std::erase_if(found, [](const PackagePin* p) { return p->optional; });
      }
      const std::string spec = spec_of(true);
      bool url = false;
      const PackagePin* env_var = nullptr;
      for (const PackagePin* p : found) {
        url = url || p->direct_url;
        if (p->env_var && !env_var) env_var = p;
      }
      // The pin that names the version, when one does (`==`), else the first.
      const auto exact = std::find_if(found.begin(), found.end(), [](const PackagePin* p) {
        return p->spec.find("==") != std::string::npos && p->spec.find('*') == std::string::npos;
      });
      const PackagePin& first = exact != found.end() ? **exact : *found.front();
      t->pin = first.span;
      t->why = project.sources.get(first.span.file).path + ": " + first.text;
      if (url) {
        t->why += "; a direct URL, version unknown";
        break;
      }
      if (env_var) {
        // `trl==${TRL_VERSION}`: pip substitutes the variable when it installs; it may be anything.
        t->pin = env_var->span;
        t->why = project.sources.get(env_var->span.file).path + ": " + env_var->text +
                 "; an environment variable, version unknown";
        break;
      }
      t->version = resolve_spec(spec, knowledge, t->library);
      if (t->version && !satisfies(*t->version, spec)) {
        // `trl~=0.19.0` beside `trl==1.0.0`: no version is both; pip would refuse to install.
        t->version.reset();
        t->why += "; the pins of this folder disagree (" + spec + ")";
      } else if (t->version && spec.find("==") == std::string::npos) {
        t->why += "; newest known release inside the range";
      }
      break;
    }
    if (!decided) {
      if (const LibraryReleases* lib = knowledge.library(t->library); lib && !lib->newest.empty()) {
        t->version = lib->newest;
        t->why = "newest known release; no pin found";
      }
    }
  }
  return out;
}

}  // namespace

}  // namespace trl
