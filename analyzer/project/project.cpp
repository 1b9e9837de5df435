#include "analyzer/project/project.hpp"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "analyzer/deps/pin_extractor.hpp"
#include "analyzer/discover/discover.hpp"
#include "analyzer/json/json_extractor.hpp"
#include "analyzer/make/makefile_extractor.hpp"
#include "analyzer/makefile/makefile_comments.hpp"
#include "analyzer/markdown/markdown_extractor.hpp"
#include "analyzer/notebook/notebook_extractor.hpp"
#include "analyzer/python/python_extractor.hpp"
#include "analyzer/shell/shell_extractor.hpp"
#include "analyzer/yaml/workflow.hpp"
#include "analyzer/yaml/yaml_extractor.hpp"

namespace fs = std::filesystem;

namespace trl {

FileId Project::resolve(const std::string& path, const std::vector<std::string>& bases) const {
  if (path.empty()) return kNoFile;
  fs::path p(path);
  if (p.is_absolute()) return sources.find_abs(p.lexically_normal().string());
  for (const auto& base : bases) {
    FileId id = sources.find_abs((fs::path(base) / p).lexically_normal().string());
    if (id != kNoFile) return id;
  }
  return kNoFile;
}

// Checks text the way reading from disk does (size, NUL bytes, UTF-8, byte order mark) and keeps it.
void accept_text(SourceFile& file, FileFacts& facts, std::string text) {
  if (text.size() >= kNoFile) {  // spans are 32-bit byte offsets
    facts.problems.push_back({"TRL905", "file is 4 GB or more; skipped", Span{file.id}});
    return;
  }
  if (text.find('\0') != std::string::npos) {
    facts.problems.push_back({"TRL902", "file contains NUL bytes (binary?); skipped", Span{file.id}});
    return;
  }
  if (!is_valid_utf8(text)) {
    facts.problems.push_back({"TRL902", "file is not valid UTF-8; skipped", Span{file.id}});
    return;
  }
  // A UTF-8 byte order mark is not part of the content (Python and PyYAML skip it).
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.replace(0, 3, "   ");
  file.text = std::move(text);
  file.index_lines();
  facts.loaded = true;
}

namespace {

// Reads a file with the checks every later stage relies on: size, text, UTF-8.
void read_file(SourceFile& file, FileFacts& facts, std::uint64_t max_size) {
  std::error_code ec;
  auto size = fs::file_size(file.abs_path, ec);
  if (ec) {
    facts.problems.push_back({"TRL901", "cannot read file: " + ec.message(), Span{file.id}});
    return;
  }
  if (size > max_size) {
    facts.problems.push_back({"TRL905",
                              "file is " + std::to_string(size >> 20) + " MB, over the " +
                                  std::to_string(max_size >> 20) + " MB limit (--max-file-size); skipped",
                              Span{file.id}});
    return;
  }
  std::ifstream in(file.abs_path, std::ios::binary);
  if (!in) {
    facts.problems.push_back({"TRL901", "cannot read file: permission denied or vanished", Span{file.id}});
    return;
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    facts.problems.push_back({"TRL901", "cannot read file: read error", Span{file.id}});
    return;
  }
  accept_text(file, facts, std::move(text));
}

// The project file an overlay stands for: the discovered one with the same path, else a new
// file (a buffer not saved yet, or one discovery skipped).
FileId overlay_target(Project& project, const Overlay& overlay) {
  std::error_code ec;
  fs::path abs = fs::absolute(overlay.path, ec).lexically_normal();
  for (const fs::path& candidate : {abs, fs::weakly_canonical(abs, ec)}) {
    FileId id = project.sources.find_abs(candidate.string());
    if (id != kNoFile) return id;
  }
  auto sf = std::make_unique<SourceFile>();
  fs::path canonical = fs::weakly_canonical(abs, ec);
  if (ec) canonical = abs;
  fs::path rel = fs::relative(canonical, fs::current_path(ec), ec);
  sf->path = (ec || rel.empty()) ? canonical.generic_string() : rel.generic_string();
  sf->abs_path = canonical.string();
  sf->kind = classify(canonical.filename().string(), std::string_view(overlay.text).substr(0, 256));
  FileId id = project.sources.add(std::move(sf));
  project.facts.emplace_back();
  return id;
}

}  // namespace

FileId add_file_from_text(Project& project, const std::string& path, std::string text, FileKind kind) {
  auto sf = std::make_unique<SourceFile>();
  sf->path = path;
  sf->abs_path = (fs::path(project.root) / path).lexically_normal().string();
  sf->kind = kind;
  FileId id = project.sources.add(std::move(sf));
  project.facts.resize(project.sources.size());
  SourceFile& file = project.sources.get_mut(id);
  accept_text(file, project.facts[id], std::move(text));
  if (project.facts[id].loaded) extract_file(project, id);
  return id;
}

void extract_file(Project& project, FileId id) {
  SourceFile& file = project.sources.get_mut(id);
  FileFacts& facts = project.facts[id];
  auto take = [&](std::vector<FileProblem>& problems) {
    for (auto& p : problems) facts.problems.push_back(std::move(p));
  };
  switch (file.kind) {
    case FileKind::Python: {
      auto f = python::extract(file.text, id);
      facts.python = std::move(f.module);
      facts.comments = std::move(f.comments);
      take(f.problems);
      break;
    }
    case FileKind::Yaml: {
      auto f = yaml::extract(file.text, id);
      facts.yaml = std::move(f.documents);
      facts.comments = std::move(f.comments);
      take(f.problems);
      if (yaml::is_workflow_path(file.abs_path))
        for (const auto& doc : facts.yaml) {
          auto w = yaml::workflow_commands(doc, file.text, id);
          for (auto& c : w.commands) facts.commands.push_back(std::move(c));
          for (auto& c : w.created) facts.created.push_back(std::move(c));
        }
      break;
    }
    case FileKind::Json: {
      auto f = json::extract(file.text, id);
      facts.yaml = std::move(f.documents);
      take(f.problems);
      break;
    }
    case FileKind::Shell: {
      auto f = shell::extract(file.text, id);
      facts.commands = std::move(f.commands);
      facts.created = std::move(f.created);
      facts.comments = std::move(f.comments);
      take(f.problems);
      break;
    }
    case FileKind::Makefile: {
      auto f = make::extract(file.text, id);
      facts.commands = std::move(f.commands);
      facts.created = std::move(f.created);
      facts.comments = makefile::comments(file.text, id);
      break;
    }
    case FileKind::Markdown: {
      // Docs show partial snippets: their syntax errors are not reported.
      auto doc = markdown::scan(file.text);
      for (const auto& b : doc.blocks)
        facts.blocks.push_back({static_cast<DocBlock::Lang>(b.lang), b.first_line, b.last_line});
      for (const auto& h : doc.headings) facts.headings.push_back({h.level, h.line});
      auto has_code = [](const std::string& t) { return t.find_first_not_of(" \n\r") != std::string::npos; };
      if (has_code(doc.shell_text)) {
        auto f = shell::extract(doc.shell_text, id);
        facts.commands = std::move(f.commands);
        facts.created = std::move(f.created);
      }
      if (has_code(doc.python_text)) facts.python = python::extract(doc.python_text, id).module;
      if (has_code(doc.yaml_text)) facts.yaml = yaml::extract(doc.yaml_text, id).documents;
      break;
    }
    case FileKind::Notebook: {
      auto nb = notebook::scan(file.text);
      if (!nb.valid) {
        facts.problems.push_back({"TRL903", nb.error, Span{id}});
        break;
      }
      auto f = shell::extract(nb.shell_text, id);
      facts.commands = std::move(f.commands);
      facts.created = std::move(f.created);
      auto py = python::extract(nb.python_text, id);
      facts.python = std::move(py.module);
      break;
    }
    default: break;
  }
  deps::extract_pins(file, facts);
}

Project load_project(const LoadOptions& options) {
  Project project;
  Discovery d = discover(options.paths, options.excluded);
  project.root = d.root;
  project.target_versions = options.target_versions;
  project.missing_paths = std::move(d.missing);
  for (auto& f : d.files) {
    auto sf = std::make_unique<SourceFile>();
    sf->path = f.display_path;
    sf->abs_path = f.abs_path;
    sf->kind = f.kind;
    project.sources.add(std::move(sf));
  }
  project.facts.resize(project.sources.size());
  // Entries the walk had to skip (FIFOs, unreadable folders) are reported as files of their own.
  for (auto& [path, message] : d.problems) {
    auto sf = std::make_unique<SourceFile>();
    sf->path = path;
    sf->abs_path = "<skipped>/" + path;
    sf->kind = FileKind::Other;
    sf->index_lines();
    FileId id = project.sources.add(std::move(sf));
    project.facts.emplace_back();
    project.facts[id].problems.push_back({"TRL901", message, Span{id}});
  }
  if (options.overlay) project.overlay_file = overlay_target(project, *options.overlay);
  const std::size_t n = project.sources.size();
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(n, 1)));
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      SourceFile& file = project.sources.get_mut(static_cast<FileId>(i));
      if (file.abs_path.rfind("<skipped>/", 0) == 0) continue;  // a walk problem, already reported
      try {
        if (static_cast<FileId>(i) == project.overlay_file)
          accept_text(file, project.facts[i], options.overlay->text);
        else
          read_file(file, project.facts[i], options.max_file_size);
        if (project.facts[i].loaded) extract_file(project, static_cast<FileId>(i));
      } catch (const std::exception& e) {
        // A defect of ours on one file must not stop the others.
        project.facts[i] = FileFacts{};
        project.facts[i].problems.push_back(
            {"TRL901", std::string("internal error while reading: ") + e.what(), Span{static_cast<FileId>(i)}});
      }
    }
  };
  if (threads <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
    for (auto& t : pool) t.join();
  }
  load_referenced_json(project, options);
  return project;
}

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

}  // namespace

bool inside_folder(const std::string& path, const std::string& folder) {
  return !folder.empty() && path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 &&
         (folder.back() == '/' || path[folder.size()] == '/');
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
    const SourceFile& from = project.sources.get(static_cast<FileId>(i));
    if (!project.facts[i].loaded ||
        (from.kind != FileKind::Python && from.kind != FileKind::Notebook && from.kind != FileKind::Markdown))
      continue;
    const fs::path dir = fs::path(from.abs_path).parent_path();
    for (const std::string& literal : json_literals(from.text)) {
      const fs::path rel(literal);
      if (rel.is_absolute()) continue;  // a path on the author's machine
      for (const fs::path& base : {root, dir, cwd}) {
        const fs::path candidate = (base / rel).lexically_normal();
        if (!under(candidate, root)) continue;                               // never read outside the analysed root
        if (project.sources.find_abs(candidate.string()) != kNoFile) break;  // already loaded
        if (!fs::is_regular_file(candidate, ec)) continue;
        if (!under(fs::weakly_canonical(candidate, ec), root_real)) continue;  // a symlink out of the root
        if (options.excluded && options.excluded(candidate.string())) break;
        auto sf = std::make_unique<SourceFile>();
        const fs::path shown = fs::relative(candidate, cwd, ec);
        sf->path = (ec || shown.empty()) ? candidate.generic_string() : shown.generic_string();
        sf->abs_path = candidate.string();
        sf->kind = FileKind::Json;
        const FileId id = project.sources.add(std::move(sf));
        project.facts.resize(project.sources.size());
        read_file(project.sources.get_mut(id), project.facts[id], options.max_file_size);
        if (project.facts[id].loaded) extract_file(project, id);
        break;
      }
    }
  }
}

Project make_project(const std::string& root, const std::vector<std::pair<std::string, std::string>>& files) {
  Project project;
  project.root = root;
  for (const auto& [rel, text] : files) {
    auto sf = std::make_unique<SourceFile>();
    sf->path = rel;
    sf->abs_path = (fs::path(root) / rel).lexically_normal().string();
    sf->kind = classify(fs::path(rel).filename().string(), text.substr(0, 256));
    project.sources.add(std::move(sf));
  }
  project.facts.resize(project.sources.size());
  for (FileId id = 0; id < project.sources.size(); ++id) {
    // The same checks as a file read from disk (NUL bytes, UTF-8, BOM).
    accept_text(project.sources.get_mut(id), project.facts[id], files[id].second);
    if (project.facts[id].loaded) extract_file(project, id);
  }
  return project;
}

}  // namespace trl
