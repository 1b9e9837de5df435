#include "analyzer/config/apply.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

#include "analyzer/project/prefilter.hpp"
#include "analyzer/util/clean_path.hpp"

namespace fs = std::filesystem;

namespace trl {

namespace {

// The absolute path configuration lookups use for a project file.
std::string lookup_path(const SourceFile& f) {
  if (f.abs_path.rfind("<skipped>/", 0) == 0) {
    std::error_code ec;
    return fs::absolute(f.path, ec).lexically_normal().string();
  }
  return f.abs_path;
}

// The settings that govern a project file. Entries the walk skipped may be folders: for_path.
const Settings& settings_of(Configuration& config, const SourceFile& f) {
  if (f.abs_path.rfind("<skipped>/", 0) == 0) return config.for_path(lookup_path(f));
  return config.for_file(f.abs_path);
}

Span span_in(const SourceFile& f, const ConfigLocation& where) {
  auto offset = [&](Point p) -> std::uint32_t {
    if (p.line >= f.line_starts.size()) return static_cast<std::uint32_t>(f.text.size());
    std::uint32_t o = f.line_starts[p.line] + p.column;
    return std::min<std::uint32_t>(o, static_cast<std::uint32_t>(f.text.size()));
  };
  Span s;
  s.file = f.id;
  s.begin = offset(where.start);
  s.end = std::max(s.begin, offset(where.stop));
  s.start = f.point_at(s.begin);
  s.stop = f.point_at(s.end);
  return s;
}

FileId add_config_file(Project& project, const std::string& abs_path) {
  FileId id = project.sources.find_abs(abs_path);
  if (id != kNoFile) return id;
  std::ifstream in(abs_path, std::ios::binary);
  if (!in) return kNoFile;
  auto f = std::make_unique<SourceFile>();
  std::error_code ec;
  fs::path rel = fs::relative(abs_path, fs::current_path(ec), ec);
  f->path = (ec || rel.empty()) ? abs_path : rel.generic_string();
  f->abs_path = abs_path;
  f->kind = FileKind::Other;  // read for positions only; not analysed as a project file
  f->text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  f->index_lines();
  id = project.sources.add(std::move(f));
  project.facts.resize(project.sources.size());
  return id;
}

Word word(const SourceFile& f, const Located<std::string>& v) {
  return Word{v.value, true, span_in(f, v.where)};
}

}  // namespace

ExcludeFn exclusion(Configuration& config) {
  // Discovery asks for every file and folder, folder by folder: the settings of the last parent
  // folder are remembered (Configuration keeps each Settings alive for its own lifetime).
  struct Last {
    std::string dir;
    const Settings* settings = nullptr;
  };
  auto last = std::make_shared<Last>();
  return [&config, last](const std::string& abs_path) {
    // Discovery's paths are absolute and normalised: no path object per file.
    const std::string_view dir = folder_view(abs_path);
    if (!last->settings || dir != last->dir) {
      std::string folder(dir);
      last->settings = &config.for_folder(folder);  // may throw: then the memory stays as it was
      last->dir = std::move(folder);
    }
    return last->settings->excluded(abs_path);
  };
}

FolderListedFn folder_notes(Configuration& config) {
  return [&config](const std::string& abs_dir, const std::vector<ListedName>& names) {
    config.note_folder(abs_dir, names);
  };
}

std::vector<DeclaredRun> declared_runs(Project& project, Configuration& config) {
  std::vector<const Settings*> settings;
  auto note = [&](const Settings& s) {
    if (std::find(settings.begin(), settings.end(), &s) == settings.end()) settings.push_back(&s);
  };
  note(config.for_path(project.root));
  const std::size_t n = project.sources.size();
  for (FileId id = 0; id < n; ++id) note(settings_of(config, project.sources.get(id)));

  std::vector<DeclaredRun> out;
  std::vector<std::string> scripts;
  std::set<std::tuple<std::string, std::uint32_t, std::uint32_t>> seen;
  for (const Settings* s : settings) {
    for (const DeclaredRunSpec& spec : s->runs) {
      if (!seen.emplace(spec.where.path, spec.where.start.line, spec.where.start.column).second) continue;
      FileId file = add_config_file(project, spec.where.path);
      if (file == kNoFile) continue;
      const SourceFile& f = project.sources.get(file);
      DeclaredRun run;
      run.name = spec.name;
      run.file = file;
      LaunchCommand& l = run.launch;
      l.launcher = spec.accelerate_config ? Launcher::Accelerate : Launcher::Python;
      l.span = span_in(f, spec.where);
      l.launcher_span = l.span;
      if (spec.accelerate_config) {
        Word w = word(f, *spec.accelerate_config);
        l.options.push_back(LaunchOption{"config_file", w, w.span});
      }
      l.script = word(f, *spec.script);
      // The pre-filter may have deferred the script: a declared run names it (parsed below,
      // with the other runs' scripts: each call goes over every parsed module's imports).
      if (l.script) scripts.push_back(fs::path(l.script->text).stem().string());
      if (spec.config) {
        Word flag = word(f, *spec.config);
        flag.text = "--config";
        l.args.push_back(flag);
        l.args.push_back(word(f, *spec.config));
      }
      for (const auto& a : spec.args) l.args.push_back(word(f, a));
      for (const auto& [name, value] : spec.env) l.env.push_back(EnvAssignment{name.value, word(f, value)});
      // Paths in the configuration are relative to its folder (the run's "working directory").
      l.cwd = ".";
      l.cwd_known = true;
      out.push_back(std::move(run));
    }
  }
  if (!scripts.empty()) extract_referenced(project, scripts);
  return out;
}

void apply_configured_targets(Project& project, Configuration& config) {
  for (FileId id = 0; id < project.sources.size(); ++id) {
    const Settings& s = settings_of(config, project.sources.get(id));
    for (const auto& [lib, version] : s.target_versions) project.configured_target_versions[id][lib] = version.value;
    for (const auto& folder : s.src) project.configured_src_roots[id].push_back(folder.value);
  }
}

void apply_target_versions(std::vector<TrainingRun>& runs, const Project& project, Configuration& config) {
  for (auto& r : runs) {
    const FileId anchor = r.version_anchor();
    if (anchor != kNoFile) {
      const Settings& s = settings_of(config, project.sources.get(anchor));
      for (const auto& [lib, version] : s.target_versions) r.target_versions[lib] = version.value;
    }
    for (const auto& [lib, version] : project.target_versions) r.target_versions[lib] = version;
  }
}

void apply_settings(std::vector<Diagnostic>& diags, const Project& project, Configuration& config) {
  std::erase_if(diags, [&](Diagnostic& d) {
    if (d.span.file == kNoFile) return false;
    const std::string path = lookup_path(project.sources.get(d.span.file));
    const Settings& s = settings_of(config, project.sources.get(d.span.file));
    if (!s.enabled(d.code) || s.ignored_in(d.code, path)) return true;
    d.severity = s.severity_of(d.code, d.severity);
    return false;
  });
}

bool enabled_in_file(const Project& project, Configuration& config, FileId file, const std::string& code) {
  if (file == kNoFile || file >= project.sources.size()) return true;
  return settings_of(config, project.sources.get(file)).enabled(code);
}

std::vector<std::string> disabled_everywhere(Configuration& config) {
  std::vector<std::string> out;
  const auto settings = config.resolved();
  for (const auto& code : known_codes()) {
    const bool any = std::any_of(settings.begin(), settings.end(), [&](const Settings* s) { return s->enabled(code); });
    if (!any && !settings.empty()) out.push_back(code);
  }
  return out;
}

}  // namespace trl
