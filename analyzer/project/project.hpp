// Everything read from the analysed paths: the files and the facts extracted from each.
// After this stage no code looks at a syntax tree.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/facts/command.hpp"
#include "analyzer/facts/file_facts.hpp"
#include "analyzer/facts/package_pin.hpp"
#include "analyzer/facts/python_ir.hpp"
#include "analyzer/facts/yaml_node.hpp"
#include "analyzer/source/source_file.hpp"

namespace trl {

struct FileFacts {
  py::Module python;                  // Python files
  std::vector<YamlDocument> yaml;     // YAML files
  std::vector<CommandFact> commands;  // shell scripts
  std::vector<PackagePin> pins;       // requirement pins of trl/transformers/accelerate
  std::vector<FileProblem> problems;
  bool loaded = false;  // text read and parsed
};

struct Project {
  std::string root;  // absolute folder paths are resolved against
  SourceManager sources;
  std::vector<FileFacts> facts;            // indexed by FileId
  std::vector<std::string> missing_paths;  // given on the command line but absent
  // Library versions fixed from outside (`--target-version trl=0.19.1`, the project config):
  // library name -> version. They win over the pins found in the files.
  std::map<std::string, std::string, std::less<>> target_versions;

  // A project file by a path as a launch line or config names it, tried against each base
  // folder in order (absolute folders). kNoFile when absent.
  FileId resolve(const std::string& path, const std::vector<std::string>& bases) const;
};

struct LoadOptions {
  std::vector<std::string> paths{"."};
  unsigned threads = 0;  // 0: one per core
  std::uint64_t max_file_size = 10ull << 20;
};

// discover -> read -> parse -> extract, files in parallel. Deterministic whatever the thread count.
Project load_project(const LoadOptions& options);

// Extracts the facts of one file whose text is already in `project` (also used by tests).
void extract_file(Project& project, FileId id);

}  // namespace trl
