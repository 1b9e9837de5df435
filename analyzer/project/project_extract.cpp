// Extracts the facts of a project's files: each file by its kind (Python, YAML, JSON, shell,
// Makefile, Markdown, notebook), and the whole project in the order the pre-filter needs
// (the files it keeps, then the deferred files the others name, then the JSON files they name).
#include <algorithm>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <unordered_set>

#include "analyzer/deps/pin_extractor.hpp"
#include "analyzer/json/json_extractor.hpp"
#include "analyzer/make/makefile_extractor.hpp"
#include "analyzer/makefile/makefile_comments.hpp"
#include "analyzer/markdown/markdown_extractor.hpp"
#include "analyzer/notebook/notebook_extractor.hpp"
#include "analyzer/parse/tree_sitter.hpp"
#include "analyzer/project/prefilter.hpp"
#include "analyzer/project/project.hpp"
#include "analyzer/project/project_internal.hpp"
#include "analyzer/python/python_extractor.hpp"
#include "analyzer/shell/shell_extractor.hpp"
#include "analyzer/util/parallel.hpp"
#include "analyzer/yaml/workflow.hpp"
#include "analyzer/yaml/yaml_extractor.hpp"
#include "rules/tool/tool_rules.hpp"

namespace trl {

using project_detail::for_each_word;
using project_detail::main_module_alias;
using project_detail::record_internal_error;

void extract_file(Project& project, FileId id) {
  SourceFile& file = project.sources.get_mut(id);
  FileFacts& facts = project.facts[id];
  facts.extracted = true;
  const std::uint64_t unchecked_before = ts::unchecked_parses();
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
      // The three spaces that stand for a byte order mark would indent the first line (invalid
      // YAML); the grammar and PyYAML skip the mark itself.
      std::string with_bom;
      if (file.bom) with_bom = "\xEF\xBB\xBF" + file.text.substr(3);
      auto f = yaml::extract(file.bom ? std::string_view(with_bom) : std::string_view(file.text), id);
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
        // Each block is parsed on its own, all run in one shell, in order (see shell::extract_session).
        std::vector<shell::SessionPiece> pieces;
        for (const auto& b : doc.blocks)
          if (b.lang == markdown::BlockLang::Shell && b.end > b.begin) pieces.push_back({b.begin, b.end, b.first_line});
        auto f = shell::extract_session(doc.shell_text, pieces, id);
        facts.commands = std::move(f.commands);
        facts.created = std::move(f.created);
        // The shell text keeps the file's layout (what is not shell is blanked): its comments sit
        // where they are in the file, so a `# noqa` on a launch line of a code block is read.
        facts.comments = std::move(f.comments);
      }
      if (has_code(doc.python_text)) facts.python = python::extract(doc.python_text, id).module;
      if (has_code(doc.yaml_text)) facts.yaml = yaml::extract_snippets(doc.yaml_text, id).documents;
      break;
    }
    case FileKind::Notebook: {
      auto nb = notebook::scan(file.text);
      if (!nb.valid) {
        const auto at = static_cast<std::uint32_t>(nb.error_offset);
        const Point p = file.point_at(at);
        facts.problems.push_back({tool_rules::kSyntaxError, nb.error, Span{id, at, at, p, p}});
        break;
      }
      std::vector<shell::SessionPiece> pieces;
      for (const auto& piece : nb.shell_pieces) pieces.push_back({piece.begin, piece.end, piece.line, piece.isolated});
      auto f = shell::extract_session(nb.shell_text, pieces, id);
      facts.commands = std::move(f.commands);
      facts.created = std::move(f.created);
      auto py = python::extract(nb.python_text, id);
      facts.python = std::move(py.module);
      // Each line of a cell is read at its .ipynb line: the comments of `!` commands and of code
      // cells carry the notebook's line numbers, which is what a `# noqa` is matched by (their
      // columns are the decoded text's; notebooks get no fixes, see finish_diagnostics).
      facts.comments = std::move(f.comments);
      for (auto& c : py.comments) facts.comments.push_back(std::move(c));
      std::stable_sort(facts.comments.begin(), facts.comments.end(),
                       [](const Comment& a, const Comment& b) { return a.span.start.line < b.span.start.line; });
      break;
    }
    default: break;
  }
  facts.transient = ts::unchecked_parses() != unchecked_before;
  deps::extract_pins(file, facts);
}

bool prefilter_enabled() {
  return !std::getenv("TRL_LINT_NO_PREFILTER");
}

void extract_project(Project& project, const LoadOptions& options) {
  // TokenizerOnly modules whose imports lead to a kept module are parsed with the others.
  std::optional<ProjectFolders> folders;  // made when an import needs it, shared by both passes
  if (prefilter_enabled()) resolve_conditional(project, options, folders);
  // Largest files first: the threads take the next file as they finish one, and a large file
  // taken last kept one thread parsing while the other waited (in path order the biggest
  // modules of a package come last; up to 2 ms idle of a 12 ms run at the open-r1 size). The
  // facts do not depend on the order: each file's are its own.
  std::vector<FileId> todo;
  for (FileId id = 0; id < project.sources.size(); ++id) {
    const FileFacts& f = project.facts[id];
    if (f.loaded && !f.deferred && !f.extracted) todo.push_back(id);  // deferred: parsed below if anything reaches it
  }
  std::stable_sort(todo.begin(), todo.end(), [&](FileId a, FileId b) {
    return project.sources.get(a).text.size() > project.sources.get(b).text.size();
  });
  parallel_for(todo.size(), options.threads, [&](std::size_t k) {
    try {
      extract_file(project, todo[k]);
    } catch (const std::exception& e) {
      record_internal_error(project, todo[k], e);
    }
  });
  if (prefilter_enabled()) {
    // Deferred files that a launch line, a configuration, a document or an import names are
    // parsed after all: every word of the other files' texts, and the imports of the modules.
    // Only the words that name a deferred file matter: they are looked up, not collected.
    std::vector<std::string> names;
    bool dotted = false;  // a deferred module whose name has a `.` (`prep.v2.py`)
    for (FileId id = 0; id < project.sources.size(); ++id)
      if (python_deferred(project, id)) {
        const std::string& path = project.sources.get(id).abs_path;
        names.emplace_back(python_reach_name(path));
        dotted = dotted || names.back().find('.') != std::string::npos;
        if (std::string_view alias = main_module_alias(path); !alias.empty()) names.emplace_back(alias);
      }
    const std::unordered_set<std::string_view> deferred(names.begin(), names.end());
    std::unordered_set<std::string_view> named;
    auto look_up = [&](std::string_view w) {
      if (auto it = deferred.find(w); it != deferred.end()) named.insert(*it);
    };
    if (!deferred.empty())
      for (FileId id = 0; id < project.sources.size(); ++id)
        if (project.sources.get(id).kind != FileKind::Python) {
          for_each_word(project.sources.get(id).text, look_up);
          if (dotted) for_each_word(project.sources.get(id).text, look_up, true);
        }
    extract_referenced(project, std::vector<std::string>(named.begin(), named.end()), &folders);
  }
  load_referenced_json(project, options);
}

}  // namespace trl
