#include "analyzer/project/project.hpp"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "analyzer/deps/pin_extractor.hpp"
#include "analyzer/discover/discover.hpp"
#include "analyzer/python/python_extractor.hpp"
#include "analyzer/shell/shell_extractor.hpp"
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

}  // namespace

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
      take(f.problems);
      break;
    }
    case FileKind::Yaml: {
      auto f = yaml::extract(file.text, id);
      facts.yaml = std::move(f.documents);
      take(f.problems);
      break;
    }
    case FileKind::Shell: {
      auto f = shell::extract(file.text, id);
      facts.commands = std::move(f.commands);
      take(f.problems);
      break;
    }
    default: break;
  }
  deps::extract_pins(file, facts);
}

Project load_project(const LoadOptions& options) {
  Project project;
  Discovery d = discover(options.paths);
  project.root = d.root;
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
  const std::size_t n = d.files.size();
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(n, 1)));
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      SourceFile& file = project.sources.get_mut(static_cast<FileId>(i));
      try {
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
  return project;
}

}  // namespace trl
