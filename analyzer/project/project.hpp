// Everything read from the analysed paths: the files and the facts extracted from each.
// After this stage no code looks at a syntax tree.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyzer/discover/discover.hpp"
#include "analyzer/facts/command.hpp"
#include "analyzer/facts/file_facts.hpp"
#include "analyzer/facts/package_pin.hpp"
#include "analyzer/facts/python_ir.hpp"
#include "analyzer/facts/yaml_node.hpp"
#include "analyzer/project/python_environment.hpp"
#include "analyzer/source/source_file.hpp"

namespace trl {

// A code block of a Markdown file (its lines), and the file's headings: the sections that
// let the blocks of one documented run stand in for each other.
struct DocBlock {
  enum class Lang { Shell, Python, Yaml, Other };
  Lang lang = Lang::Other;
  std::uint32_t first_line = 0;
  std::uint32_t last_line = 0;
};

struct DocHeading {
  int level = 1;
  std::uint32_t line = 0;
};

struct FileFacts {
  py::Module python;                      // Python files, Python blocks of Markdown, notebook code cells
  std::vector<YamlDocument> yaml;         // YAML files; YAML blocks of Markdown (one document each)
  std::vector<CommandFact> commands;      // shell scripts, Makefile recipes, workflow steps, docs, notebooks
  std::vector<CreatedPath> created;       // files the commands write
  std::vector<DocBlock> blocks;           // Markdown
  std::vector<DocHeading> headings;       // Markdown
  std::vector<PackagePin> pins;           // requirement pins of trl/transformers/accelerate
  std::vector<std::string> pin_includes;  // requirements files: `-r`/`-c` paths, relative to this file's folder
  std::vector<FileProblem> problems;
  std::vector<Comment> comments;  // every comment of the file, in order (suppressions read them)
  bool loaded = false;            // text read and accepted (see accept_text)
  bool deferred = false;          // a Python file the pre-filter left unparsed when it was read
  bool conditional = false;       // deferred as TokenizerOnly: parsed if its imports lead to a kept module
  bool consulted = false;         // deferred, and its imports were followed by resolve_conditional
  bool extracted = false;         // extract_file ran on it
  bool unread = false;            // not read: the result cache vouched for its content (read_unread reads it)
  // A parse of its text could not be tried in another process (ts::unchecked_parses): its facts
  // depend on the machine, not on the text, so neither they nor the findings are cached.
  bool transient = false;
  FileStamp stamp;                 // when it was read
  std::uint64_t content_hash = 0;  // of the text as read (bin::hash64); 0 when not loaded
};

struct ScriptCache;  // analyzer/eval/run_builder.hpp

// A question the analysis asks the file system about a path that is not one of the project's
// files: whether it exists, or whether a folder holds a regular file with some extension (TRL004
// judges a missing file only in a folder that holds others of its kind). A file outside the
// discovered ones (ignored by `.gitignore`, of a kind trl-lint does not read) appearing or
// disappearing changes such an answer, and the findings, without changing the file list: the
// result cache records the questions with their answers and asks them again before it trusts an
// entry. What the file list answers is not asked (Project::exists, Project::folder_holds).
struct DiskProbe {
  std::string path;    // absolute
  bool holds = false;  // false: does `path` exist; true: does the folder `path` hold a regular file ending in `ext`
  std::string ext;     // with `holds` ("" for a name without extension)
  bool answer = false;
  bool operator==(const DiskProbe&) const = default;
  bool operator<(const DiskProbe& o) const {
    if (path != o.path) return path < o.path;
    if (holds != o.holds) return holds < o.holds;
    return ext != o.ext ? ext < o.ext : answer < o.answer;
  }
};

// The answer the file system gives now (probe.answer is not read).
bool ask_disk(const DiskProbe& probe);

// The questions asked during one analysis (thread-safe: runs are built on every core).
class DiskProbes {
 public:
  void record(DiskProbe probe);
  // Sorted, each question once.
  std::vector<DiskProbe> list() const;

 private:
  mutable std::mutex mutex_;
  std::vector<DiskProbe> asked_;
};

// The file system's answers during one analysis, so that each question is asked once: over the
// real corpus the run builder asked 223 paths 667 times (each base folder of each launch). Only
// for an analysis that ends with the process; the LSP server asks again each time, as files
// appear while the editor is open. Thread-safe.
class DiskAnswers {
 public:
  // The answer given before to the same question (path, holds, ext), if any.
  std::optional<bool> find(const DiskProbe& question) const;
  void keep(const DiskProbe& question);  // with its answer

 private:
  static std::string key(const DiskProbe& question);
  mutable std::mutex mutex_;
  std::unordered_map<std::string, bool> known_;
};

struct Project {
  std::string root;  // absolute folder paths are resolved against
  // Every folder walked (absolute; `root` is the first): several projects named together are
  // read as one, each file judged against its own project's folder (root_of).
  std::vector<std::string> roots;
  // The folder of `roots` a file (absolute path) belongs to: the longest that holds it; `root`
  // when none does.
  const std::string& root_of(const std::string& abs_path) const;
  SourceManager sources;
  std::vector<FileFacts> facts;            // indexed by FileId
  std::vector<std::string> missing_paths;  // given on the command line but absent
  FileId overlay_file = kNoFile;           // the file whose text came from the overlay (stdin)
  // Library versions fixed with `--target-version trl=0.19.1`: library name -> version. They
  // win over the project configuration's `target-versions:` and over the pins in the files.
  std::map<std::string, std::string, std::less<>> target_versions;
  // The configuration's `target-versions:` that govern each file (only files that have some):
  // library name -> version. They win over the pins.
  std::map<FileId, std::map<std::string, std::string, std::less<>>> configured_target_versions;
  // The Python environments named outside the project (`--python`, `$VIRTUAL_ENV`,
  // `$CONDA_PREFIX`): the installed versions are read from the environment they choose
  // (python_environment.hpp). Empty: only an environment inside the project folder counts.
  EnvironmentHints environment_hints;
  // The `src` folders of the configuration of each Python file that has some (absolute): where
  // its imports also resolve (python_eval's search roots).
  std::map<FileId, std::vector<std::string>> configured_src_roots;
  // The size limit the files were read with (LoadOptions::max_file_size): a file left unread
  // (FileFacts::unread) and needed after all is read with it.
  std::uint64_t max_file_size = 10ull << 20;
  // Script evaluations kept from one analysis to the next (the LSP server); null: none kept.
  std::shared_ptr<ScriptCache> script_cache;
  // Where the run builder records its questions to the file system (see DiskProbe); null: not
  // recorded (only the result cache needs them).
  std::shared_ptr<DiskProbes> disk_probes;
  // Answers kept within the analysis (see DiskAnswers); null: every question goes to the disk.
  std::shared_ptr<DiskAnswers> disk_answers;

  // A project file by a path as a launch line or config names it, tried against each base
  // folder in order (absolute folders). kNoFile when absent.
  FileId resolve(const std::string& path, const std::vector<std::string>& bases) const;
  // Whether `path` (absolute) exists: a file of the project or a folder above one, else as the
  // file system says (ask_disk), the question recorded in disk_probes when there is one.
  bool exists(std::string path) const;
  // Whether the folder `folder` (absolute) holds a regular file whose extension is `ext` ("" for
  // none): a file of the project, else as the file system says (recorded the same way).
  bool folder_holds(std::string folder, std::string ext) const;

 private:
  // The folders and extensions of the project's files, for exists and folder_holds; made on
  // their first question, again once files were added (files are never removed).
  struct Listed;
  static std::shared_ptr<Listed> make_listed();
  std::shared_ptr<Listed> listed_ = make_listed();
  // Whether the file list has `key`: a path (`kind` false), or "folder\nextension" (true).
  bool listed(const std::string& key, bool kind) const;
  // The file system's answer to a question the file list does not answer, recorded in disk_probes.
  bool ask(DiskProbe question) const;
};

// A file's text given in place of what is on disk (`--stdin-filename`): the file is analysed
// with this text, and added to the project when discovery did not list it.
struct Overlay {
  std::string path;  // as given, relative to the current directory or absolute
  std::string text;
};

// A file as the result cache recorded it: when its stamp is unchanged, read_project takes these
// instead of reading the file (see analyzer/cache/result_cache.hpp).
struct KnownFile {
  FileStamp stamp;
  std::uint64_t content_hash = 0;
  bool loaded = false;
  bool deferred = false;
  bool conditional = false;
  std::vector<std::pair<std::string, std::string>> problems;  // reading problems: code, message
};

// True when `path` is strictly inside `folder` (both absolute and normalised; no file access).
bool inside_folder(const std::string& path, const std::string& folder);

struct LoadOptions;
// Adds the JSON files that Python code (scripts, notebooks, docs' Python blocks) names in a string
// literal and that exist inside the project root, read and parsed with JSON semantics: the
// configurations of `HfArgumentParser.parse_json_file` and `json.load`. Other JSON files
// (tokenizers, datasets, package.json) are never read.
void load_referenced_json(Project& project, const LoadOptions& options);
// True when some analysed file names a JSON file load_referenced_json would look for (or one was
// loaded): such an analysis depends on files discovery does not list, so the result cache does
// not store it.
bool names_json_files(const Project& project);
// Adds a JSON file Python code names to the project and reads it (not extracted): what
// load_referenced_json does for each file it finds, and the result cache for the ones it recorded.
FileId add_json_file(Project& project, const std::string& abs_path, std::uint64_t max_file_size);

struct LoadOptions {
  std::vector<std::string> paths{"."};
  std::optional<Overlay> overlay;
  // Further in-memory texts (an editor's open documents): analysed in place of the disk, added
  // when discovery did not list them; unlike `overlay`, findings are not narrowed to them.
  std::vector<Overlay> overlays;
  unsigned threads = 0;  // 0: one per core
  std::uint64_t max_file_size = 10ull << 20;
  ExcludeFn excluded;  // files and folders the configuration excludes (`exclude:`)
  // Told each folder discovery lists (discover.hpp): the configuration takes which of its files
  // a folder holds from there (folder_notes, config/apply.hpp).
  FolderListedFn listed;
  // The result cache's record of a file (its id in this project, and absolute path), or null. A
  // file whose stamp matches and was not modified within a second of the time its record was
  // taken is not read (FileFacts::unread). Set, the walk takes each file's stamp as it lists it.
  std::function<const KnownFile*(std::size_t id, const std::string& abs_path)> known;
  // That time (ns). Called once, when discovery is done and before `known` is consulted: the
  // result cache may still be reading its records, on another thread, and this waits for them.
  // Without it no record is taken.
  std::function<std::int64_t()> known_since_ns;
  // The pre-filter (FileFacts::deferred). The LSP server turns it off: an edit can make any
  // file reachable, and it re-extracts only the files that change.
  bool prefilter = true;

  std::map<std::string, std::string, std::less<>> target_versions;  // --target-version: Project::target_versions
  EnvironmentHints environment_hints;                               // Project::environment_hints
};

// discover -> read -> parse -> extract, files in parallel. Deterministic whatever the thread count.
// The same as read_project followed by extract_project.
Project load_project(const LoadOptions& options);

// discover -> read, files in parallel: every file's text is in `sources`, reading problems in its
// facts, and the pre-filter's decision in `FileFacts::deferred`; nothing is parsed yet. The
// result cache keys on this state.
Project read_project(const LoadOptions& options);

// Reads the files read_project left unread (all of them, or those of `only`).
void read_unread(Project& project, const LoadOptions& options, const std::vector<FileId>* only = nullptr);

// Reads the files read_project left unread except the Python files the pre-filter defers: what
// an analysis needs. A deferred file is read later only if something reaches it
// (extract_referenced), so an analysis after a change reads what changed and what the runs use,
// not every ordinary module of the repository.
void read_needed(Project& project, const LoadOptions& options);

// Parses and extracts the files read_project left: every loaded file but the deferred Python
// files, then the deferred files that the others reach (extract_referenced).
void extract_project(Project& project, const LoadOptions& options);

// True when TRL_LINT_NO_PREFILTER is not set (the pre-filter is on).
bool prefilter_enabled();

// Extracts the facts of one file whose text is already in `project` (also used by tests).
void extract_file(Project& project, FileId id);

// The checks every later stage relies on (size fits a span, no NUL byte, valid UTF-8; a BOM
// is blanked): stores `text` in `file` and sets `facts.loaded`, or records why it was skipped.
void accept_text(SourceFile& file, FileFacts& facts, std::string text);

// Adds a file given as text, `path` relative to `project.root`, then checks and extracts it
// as if it had been read from disk (unit tests and fuzzing build projects in memory).
FileId add_file_from_text(Project& project, const std::string& path, std::string text, FileKind kind);

// Replaces the text of one file (an edited editor buffer) and extracts its facts again, with
// the checks reading from disk makes (NUL bytes, UTF-8, byte order mark).
void replace_file_text(Project& project, FileId id, std::string text);
// Reads one file from disk again (a saved or closed editor buffer, a changed watched file).
void reload_file(Project& project, FileId id, std::uint64_t max_file_size = 10ull << 20);
// The file of an absolute path, added (not yet loaded) when the project does not hold it.
FileId find_or_add_file(Project& project, const std::string& abs_path, std::string_view head = {});

// A project from in-memory files (path relative to `root` -> text): tests, fuzzing, benchmarks.
Project make_project(const std::string& root, const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace trl
