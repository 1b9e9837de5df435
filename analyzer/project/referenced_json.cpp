// The JSON files a project's files name (in Python string literals, or as the accelerate config
// of a launch line), found under the analysed root and loaded as files of the project.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/project/prefilter.hpp"
#include "analyzer/project/project.hpp"
#include "analyzer/project/project_internal.hpp"

namespace fs = std::filesystem;

namespace trl {

using project_detail::read_file;

namespace {
// The `*.json` paths a file's text names in string literals: "cfg/train.json" or 'x.json'.
std::vector<std::string> json_literals(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t at = text.find(".json"); at != std::string_view::npos; at = text.find(".json", at + 5)) {
    const std::size_t end = at + 5;
    if (end >= text.size() || (text[end] != '"' && text[end] != '\'')) continue;
    const char quote = text[end];
    std::size_t start = at;
    while (start > 0 && text[start - 1] != quote && text[start - 1] != '\n' && at - start < 512) --start;
    if (start == 0 || text[start - 1] != quote || start == at) continue;
    out.emplace_back(text.substr(start, end - start));
  }
  return out;
}

bool ends_with_json(std::string_view s) {
  return s.size() > 5 && s.substr(s.size() - 5) == ".json";
}

// A JSON file some analysed file names, and the folder (relative to the naming file's, "" for
// its own) a relative name is also looked up from.
struct JsonName {
  std::string name;
  std::string cwd;
};

// The JSON files a file names: Python code (scripts, notebooks, docs' Python blocks) in string
// literals; any command line (shell, Slurm, Makefile recipes, workflow steps, docs' shell blocks)
// as the accelerate config of `accelerate launch --config_file X.json` or `trl <command>
// --accelerate_config X.json`, which accelerate reads with json.load (accelerate v1.14
// commands/config/config_args.py load_config_from_file: a name ending in ".json" is read as JSON,
// any other as YAML). The words are read without parsing the command: a `.json` word after
// either option, or joined to it by `=`, wherever it stands in the line (behind srun, say).
std::vector<JsonName> json_names(const Project& project, FileId id) {
  std::vector<JsonName> out;
  const SourceFile& from = project.sources.get(id);
  const FileFacts& facts = project.facts[id];
  if (!facts.loaded || python_deferred(project, id)) return out;
  if (from.kind == FileKind::Python || from.kind == FileKind::Notebook || from.kind == FileKind::Markdown)
    for (std::string& literal : json_literals(from.text)) out.push_back({std::move(literal), ""});
  static constexpr std::string_view kOptions[] = {"--config_file", "--config-file", "--accelerate_config",
                                                  "--accelerate-config"};
  for (const CommandFact& c : facts.commands) {
    const std::string cwd = c.cwd_known ? c.cwd : "";
    for (std::size_t i = 0; i < c.argv.size(); ++i) {
      const Word& w = c.argv[i];
      if (!w.known) continue;
      for (std::string_view o : kOptions) {
        if (w.text == o && i + 1 < c.argv.size() && c.argv[i + 1].known && ends_with_json(c.argv[i + 1].text))
          out.push_back({c.argv[i + 1].text, cwd});
        else if (w.text.size() > o.size() + 1 && w.text.compare(0, o.size(), o) == 0 && w.text[o.size()] == '=' &&
                 ends_with_json(std::string_view(w.text).substr(o.size() + 1)))
          out.push_back({w.text.substr(o.size() + 1), cwd});
      }
    }
  }
  return out;
}

}  // namespace

bool inside_folder(const std::string& path, const std::string& folder) {
  return !folder.empty() && path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 &&
         (folder.back() == '/' || path[folder.size()] == '/');
}

FileId add_json_file(Project& project, const std::string& abs_path, std::uint64_t max_file_size) {
  std::error_code ec;
  const fs::path candidate(abs_path);
  auto sf = std::make_unique<SourceFile>();
  const fs::path shown = fs::relative(candidate, fs::current_path(ec), ec);
  sf->path = (ec || shown.empty()) ? candidate.generic_string() : shown.generic_string();
  sf->abs_path = abs_path;
  sf->kind = FileKind::Json;
  const FileId id = project.sources.add(std::move(sf));
  project.facts.resize(project.sources.size());
  read_file(project.sources.get_mut(id), project.facts[id], max_file_size);
  return id;
}

void load_referenced_json(Project& project, const LoadOptions& options) {
  if (project.root.empty()) return;
  std::error_code ec;
  const fs::path root = fs::path(project.root).lexically_normal();
  const fs::path root_real = fs::weakly_canonical(root, ec);
  auto under = [](const fs::path& p, const fs::path& folder) { return inside_folder(p.string(), folder.string()); };
  const fs::path cwd = fs::current_path(ec);
  const std::size_t n = project.sources.size();
  for (std::size_t i = 0; i < n; ++i) {
    // Not the Python files the pre-filter left unparsed (nothing of training, reached by nothing):
    // their text takes part in no run (and the result cache does not key on it).
    const std::vector<JsonName> names = json_names(project, static_cast<FileId>(i));
    if (names.empty()) continue;
    const fs::path dir = fs::path(project.sources.get(static_cast<FileId>(i)).abs_path).parent_path();
    for (const JsonName& named : names) {
      const fs::path rel(named.name);
      if (rel.is_absolute()) continue;  // a path on the author's machine
      std::vector<fs::path> bases{root, dir, cwd};
      if (!named.cwd.empty()) bases.push_back((dir / named.cwd).lexically_normal());
      for (const fs::path& base : bases) {
        const fs::path candidate = (base / rel).lexically_normal();
        if (!under(candidate, root)) continue;  // never read outside the analysed root
        // The result cache asks again whether each name still finds (or still misses) a file.
        if (project.disk_probes)
          project.disk_probes->record({candidate.string(), false, "", fs::exists(candidate, ec)});
        if (const FileId have = project.sources.find_abs(candidate.string()); have != kNoFile) {
          // Already loaded: by another name, or by a cache lookup that then missed (not extracted).
          if (project.sources.get(have).kind == FileKind::Json && project.facts[have].loaded &&
              !project.facts[have].extracted)
            extract_file(project, have);
          break;
        }
        if (!fs::is_regular_file(candidate, ec)) continue;
        if (!under(fs::weakly_canonical(candidate, ec), root_real)) continue;  // a symlink out of the root
        if (options.excluded && options.excluded(candidate.string())) break;
        const FileId id = add_json_file(project, candidate.string(), options.max_file_size);
        if (project.facts[id].loaded) extract_file(project, id);
        break;
      }
    }
  }
}

bool names_json_files(const Project& project) {
  for (std::size_t i = 0; i < project.sources.size(); ++i) {
    if (project.sources.get(static_cast<FileId>(i)).kind == FileKind::Json) return true;
    for (const JsonName& named : json_names(project, static_cast<FileId>(i)))
      if (!fs::path(named.name).is_absolute()) return true;
  }
  return false;
}

}  // namespace trl
