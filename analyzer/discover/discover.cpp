#include "analyzer/discover/discover.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <system_error>

#include "analyzer/discover/gitignore.hpp"

namespace fs = std::filesystem;

namespace trl {

namespace {

bool skipped_dir(const std::string& name, const fs::path& dir) {
  static const std::set<std::string> names = {".git",          ".hg",         ".svn",           "node_modules",
                                              "__pycache__",   ".venv",       "venv",           ".tox",
                                              ".nox",          ".mypy_cache", ".pytest_cache",  ".ruff_cache",
                                              ".eggs",         "build",       "dist",           ".ipynb_checkpoints",
                                              "site-packages", ".cache",      ".trl-lint_cache"};
  if (names.count(name)) return true;
  std::error_code ec;
  // Virtual environments and cache folders mark themselves.
  return fs::exists(dir / "pyvenv.cfg", ec) || fs::exists(dir / "CACHEDIR.TAG", ec);
}

// The first `n` bytes of a file ("" when it cannot be opened), read in small steps: most files
// asked for (.gitignore of every folder) are absent or short.
std::string read_head(const fs::path& p, std::size_t n) {
  std::ifstream in(p, std::ios::binary);
  std::string s;
  if (!in) return s;
  char buf[4096];
  while (s.size() < n && in.read(buf, static_cast<std::streamsize>(std::min(sizeof buf, n - s.size())))) {
    s.append(buf, static_cast<std::size_t>(in.gcount()));
  }
  if (s.size() < n) s.append(buf, static_cast<std::size_t>(in.gcount()));
  return s;
}

// `abs` as users see it: relative to the working folder `cwd` (empty when unknown), lexically —
// fs::relative would resolve symlinks, showing a link by its target's path.
std::string display_path(const fs::path& abs, const fs::path& cwd) {
  // The common case without fs::path arithmetic: a path below the working folder.
  const std::string& a = abs.native();
  const std::string& c = cwd.native();
  if (!c.empty() && c != "/" && a.size() > c.size() + 1 && a.compare(0, c.size(), c) == 0 && a[c.size()] == '/' &&
      a.find("/.", c.size()) == std::string::npos)
    return a.substr(c.size() + 1);
  fs::path rel = cwd.empty() ? fs::path() : abs.lexically_relative(cwd);
  return rel.empty() ? abs.generic_string() : rel.generic_string();
}

// Why a path that exists cannot be read as a text file, or "" when it can be tried.
std::string not_readable_reason(const fs::path& p) {
  std::error_code ec;
  auto st = fs::status(p, ec);
  if (ec == std::errc::too_many_symbolic_link_levels) return "symlink loop; skipped";
  if (!fs::exists(st)) return "dangling symlink (its target does not exist); skipped";
  if (fs::is_regular_file(st)) return "";
  return "not a regular file (FIFO, socket or device); skipped";
}

bool inside(const fs::path& child, const fs::path& root) {
  auto c = child.begin(), r = root.begin();
  for (; r != root.end(); ++r, ++c) {
    if (c == child.end() || *c != *r) return false;
  }
  return true;
}

}  // namespace

FileKind classify(const std::string& name, std::string_view head) {
  auto ends = [&](std::string_view suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends(".py")) return FileKind::Python;
  if (ends(".yaml") || ends(".yml")) return FileKind::Yaml;
  if (ends(".sh") || ends(".bash") || ends(".slurm") || ends(".sbatch")) return FileKind::Shell;
  if (ends(".md") || ends(".markdown")) return FileKind::Markdown;
  if (ends(".ipynb")) return FileKind::Notebook;
  if (name == "Makefile" || name == "makefile" || name == "GNUmakefile" || ends(".mk")) return FileKind::Makefile;
  if (name == "pyproject.toml") return FileKind::Toml;
  if (name == "setup.cfg") return FileKind::SetupCfg;
  if (name.rfind("requirements", 0) == 0 && ends(".txt")) return FileKind::Requirements;
  if (name.find('.') == std::string::npos && head.rfind("#!", 0) == 0) {
    std::string_view line = head.substr(0, head.find('\n'));
    if (line.find("bash") != std::string_view::npos || line.find("/sh") != std::string_view::npos ||
        line.find(" sh") != std::string_view::npos || line.find("zsh") != std::string_view::npos)
      return FileKind::Shell;
    if (line.find("python") != std::string_view::npos) return FileKind::Python;
  }
  return FileKind::Other;
}

std::string discovery_root(const std::vector<std::string>& paths) {
  for (const auto& given : paths) {
    std::error_code ec;
    fs::path p = fs::absolute(given, ec).lexically_normal();
    if (!fs::exists(fs::symlink_status(p, ec))) continue;
    if (!fs::is_directory(p, ec)) return p.parent_path().string();
    return fs::weakly_canonical(p, ec).string();
  }
  return fs::current_path().string();
}

Discovery discover(const std::vector<std::string>& paths, const ExcludeFn& excluded) {
  Discovery out;
  std::error_code cwd_ec;
  const fs::path cwd = fs::current_path(cwd_ec);  // asked once: it does not change during the walk
  auto display = [&](const fs::path& abs) { return display_path(abs, cwd_ec ? fs::path() : cwd); };
  std::set<std::string> seen;
  for (const auto& given : paths) {
    std::error_code ec;
    fs::path p = fs::absolute(given, ec).lexically_normal();
    if (!fs::exists(fs::symlink_status(p, ec))) {
      out.missing.push_back(given);
      continue;
    }
    if (!fs::is_directory(p, ec)) {
      // A file named explicitly is read whatever its kind (the user asked for it).
      std::string s = p.string();
      if (out.root.empty()) out.root = p.parent_path().string();
      if (!seen.insert(s).second) continue;
      if (std::string why = not_readable_reason(p); !why.empty()) {
        // Never open a FIFO or device: reading one blocks or never ends.
        out.problems.emplace_back(display(p), why);
        continue;
      }
      out.files.push_back({s, display(p), classify(p.filename().string(), read_head(p, 256))});
      continue;
    }
    fs::path root = fs::weakly_canonical(p, ec);
    if (out.root.empty()) out.root = root.string();
    IgnoreRules ignore;
    // Iterative walk: folders as an explicit stack (with their path relative to the root), sorted
    // for a stable order. Paths are built by appending names to the canonical root, so they are
    // normal already.
    std::vector<std::pair<fs::path, std::string>> stack{{root, ""}};
    while (!stack.empty()) {
      auto [dir, rel_dir] = std::move(stack.back());
      stack.pop_back();
      if (std::string gi = read_head(dir / ".gitignore", 1 << 20); !gi.empty()) ignore.add_file(rel_dir, gi);
      // Each entry with its name, taken once: sorting by path().filename() builds two paths per
      // comparison, which showed in the profile of a warm (cached) run over 20,000 files.
      std::vector<std::pair<std::string, fs::directory_entry>> entries;
      // Not skip_permission_denied: an unreadable folder is reported, not silently dropped.
      fs::directory_iterator it(dir, ec);
      if (ec) {
        out.problems.emplace_back(display(dir), "cannot read directory: " + ec.message());
        continue;
      }
      for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) break;
        entries.emplace_back(it->path().filename().string(), *it);
      }
      if (ec) out.problems.emplace_back(display(dir), "cannot list the whole directory: " + ec.message());
      std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      std::vector<std::pair<fs::path, std::string>> subdirs;
      for (const auto& [name, e] : entries) {
        const fs::path& path = e.path();
        const std::string rel = rel_dir.empty() ? name : rel_dir + "/" + name;
        std::error_code sec;
        const bool is_link = e.is_symlink(sec);
        if (is_link) {
          // Follow a symlinked file only when it stays inside the root; never a symlinked folder.
          // A link we do not follow is reported when its name is one trl-lint would read.
          const bool relevant = classify(name, "") != FileKind::Other;
          if (relevant && ignore.ignored(rel, false)) continue;
          fs::path target = fs::weakly_canonical(path, sec);
          if (sec) {
            if (relevant)
              out.problems.emplace_back(display(path), sec == std::errc::too_many_symbolic_link_levels
                                                           ? "symlink loop; skipped"
                                                           : "cannot resolve symlink: " + sec.message() + "; skipped");
            continue;
          }
          std::error_code tec;
          auto target_status = fs::status(path, tec);
          if (fs::is_directory(target_status)) continue;
          if (!inside(target, root)) {
            if (relevant)
              out.problems.emplace_back(display(path), "symlink points outside the analysed folder; not followed");
            continue;
          }
          if (!fs::exists(target_status)) {
            if (relevant)
              out.problems.emplace_back(display(path), tec == std::errc::too_many_symbolic_link_levels
                                                           ? "symlink loop; skipped"
                                                           : "dangling symlink (its target does not exist); skipped");
            continue;
          }
        }
        if (e.is_directory(sec) && !is_link) {
          if (skipped_dir(name, path) || ignore.ignored(rel, true)) continue;
          if (excluded && excluded(path.string())) continue;
          subdirs.emplace_back(path, rel);
          continue;
        }
        if (ignore.ignored(rel, false)) continue;
        const std::string s = path.string();
        if (excluded && excluded(s)) continue;
        const bool regular = e.is_regular_file(sec);
        FileKind kind = classify(name, (name.find('.') == std::string::npos && regular) ? read_head(path, 256) : "");
        if (kind == FileKind::Other) continue;
        if (!regular) {
          out.problems.emplace_back(display(path), "not a regular file (FIFO, socket or device); skipped");
          continue;
        }
        if (seen.insert(s).second) out.files.push_back({s, display(path), kind});
      }
      for (auto d = subdirs.rbegin(); d != subdirs.rend(); ++d) stack.push_back(*d);
    }
  }
  std::sort(out.files.begin(), out.files.end(),
            [](const auto& a, const auto& b) { return a.display_path < b.display_path; });
  if (out.root.empty()) out.root = fs::current_path().string();
  return out;
}

}  // namespace trl
