// The pre-filter of load_project: Python files that cannot matter are read but not parsed.
// A file is deferred when its text has no training-related name (trl, transformers, accelerate,
// peft, deepspeed, Trainer, dynamic imports) and no comment addressed to trl-lint (`noqa`,
// `trl-lint:`). load_project then parses every deferred file that the other files reach: a word
// of a non-Python file (launch lines, configurations, documents) equal to its stem, or an import
// of a parsed module. A module whose only such names import tokenizer classes from transformers
// is deferred too, unless its imports lead to a kept module (resolve_conditional).
// TRL_LINT_NO_PREFILTER=1 in the environment parses every file.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analyzer/project/project.hpp"

namespace trl {

// True when a Python file's text may matter to some run or rule (a conservative substring test).
bool python_may_matter(std::string_view text);
// Where the first of python_may_matter's names starts at or after byte `from`; text.size() when
// none does.
std::size_t find_training_name(std::string_view text, std::size_t from);
// The same answer, one byte at a time: what python_may_matter does without SSE2 (tests compare
// the two).
bool python_may_matter_bytewise(std::string_view text);

// What the pre-filter makes of a Python file's text.
enum class PythonRelevance : std::uint8_t {
  Unrelated,  // none of python_may_matter's names: deferred
  // Its only names are `from transformers import ...` statements of tokenizer classes, which no
  // rule and no evaluation looks at (inert_transformers_names). Such a module cannot build a
  // trainer or a configuration by itself: it is deferred like an unrelated one, unless its
  // imports lead to a module that may (resolve_conditional).
  TokenizerOnly,
  Matters,  // parsed
};
PythonRelevance python_relevance(std::string_view text);

// The names a `from transformers import` statement may import and leave a module TokenizerOnly.
const std::vector<std::string_view>& inert_transformers_names();

// Calls `fn` with every word (the parts of dotted names, aliases, `import`, `from`, and the dots
// of a relative import as one word) of every import statement of a Python text: statements
// after `;` and `:` included, continued lines followed, strings and comments skipped, `\n`,
// `\r\n` and a lone `\r` all ending lines. `binds` is true for the names a statement binds to
// modules or packages it may import: the first part of each name of `import a.b, c` and the
// names of `from m import x, y` (attribute access on them reaches submodules). Returns false,
// having called `fn` for some words or none, when the text cannot be followed (an unterminated
// string, an unbalanced bracket): the caller must then take every word of the text instead.
using ImportWordFn = std::function<void(std::string_view word, bool binds)>;
bool python_import_words(std::string_view text, const ImportWordFn& fn);

// The folders of a project's Python files by name (each folder of a Python file and its
// ancestors, below the deepest folder common to them all): `import pkg` binds a package or
// namespace folder, and attribute access (`pkg.sub.mod.f()`) reaches any module under it. Not
// for use by several threads.
class ProjectFolders {
 public:
  explicit ProjectFolders(const Project& project);
  // The Python files under a folder named `name`, at any depth, in FileId order (gathered the
  // first time a name is asked for).
  const std::vector<FileId>& python_files_under(std::string_view name) const;

 private:
  std::vector<std::vector<FileId>> dir_files_;                           // per folder: its Python files
  std::unordered_map<std::string, std::vector<std::size_t>> name_dirs_;  // name -> folders at or under one so named
  mutable std::unordered_map<std::string, std::vector<FileId>> files_;
};

// The `__init__.py` path of the package a relative import with `dots` dots starts from, for the
// module at absolute path `file` ("" above the file system's root).
std::string package_init(std::string_view file, std::size_t dots);

// Parses the TokenizerOnly modules whose imports lead to a Python module the pre-filter keeps:
// the modules are linked by import words equal to reach names (python_reach_name), as
// extract_referenced links them, through deferred modules (read first when unread). Every
// deferred module looked at is marked `consulted` (the result cache keys on its text).
// `folders`: the project's folder index, made here when needed and left for extract_referenced
// (the project's files do not change in between).
void resolve_conditional(Project& project, const LoadOptions& options, std::optional<ProjectFolders>& folders);

// True for a Python file that is read but has no facts: deferred by the pre-filter (or empty).
bool python_deferred(const Project& project, FileId id);

// The name a deferred Python file is reached by: the stem of the last component of `path` (as
// std::filesystem::path::stem), or for `__init__.py` the name of its folder. A view into `path`.
std::string_view python_reach_name(std::string_view path);

// Parses the deferred Python files that `names` (file stems, module path components) or the
// imports of parsed modules reach, until nothing new is reached. Idempotent. `folders`: the
// project's folder index when the caller has one (made when needed otherwise).
void extract_referenced(Project& project, const std::vector<std::string>& names,
                        std::optional<ProjectFolders>* folders = nullptr);

}  // namespace trl
