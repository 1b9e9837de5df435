// The result cache (like ruff's `.ruff_cache`): the findings of a whole analysis, stored under a
// key made of everything they depend on, so that a second run over an unchanged repository skips
// parsing, extraction, run building and the rules.
//
// Unchanged files are not even read: the entry records each file's stamp (device, inode, size,
// modification and change times) and content hash, and a file whose stamp is unchanged — and was
// not modified within a second of the record, which could hide a change (git's "racy" case) — is
// taken as recorded. Only the files the findings point into are read, to show them.
//
// The key: the tool build (version, and the size and modification time of the executable, so a
// rebuilt binary never reads an older binary's results), the embedded knowledge's hash, every
// option that changes findings (selection, --config/--isolated, --max-file-size, the pre-filter
// switch, the working folder and the paths given), the configuration files that govern each
// folder with their contents, and every file: its path, kind, reading problems and content hash.
// The one exception is a Python file the pre-filter defers (no training name, no trl-lint
// comment): only its path and the fact that it was deferred count, because its text takes part
// in no run unless something reaches it. The deferred files that were reached after all, and
// those whose imports resolve_conditional followed (whether a module that imports only tokenizer
// classes is parsed depends on their texts), are recorded with their content hashes in the entry
// and checked on lookup. The questions the run builder asked the file system about paths that
// need not be project files (DiskProbe: does `configs/local/acc.yaml` exist, ignored by
// `.gitignore` as it is) are recorded with their answers and asked again on lookup. So an edit to an
// ordinary module nobody imports keeps the cache valid, while an edit to any file of any run
// invalidates it. After such a miss only what the analysis needs is read (read_needed): the
// deferred modules stay unread unless a run now reaches them.
//
// Beside the entry, a file of its own (read only after a miss) keeps the findings of each run and
// each evaluated script with the files each read (JudgedParts), and each file's content hash. After a miss in which no
// file was added or removed, the configuration is the same and no changed file holds version pins (kept_parts), only
// the runs and scripts that read a changed file are built and judged again; the others' findings are taken from the
// entry (analyzer/pipeline/rejudge.hpp).
//
// One entry per invocation shape (slot: hash of options and working folder), replaced on every
// miss. A pre-commit hook names other files at each commit, so each commit is a new shape: after
// each store, the folder keeps the kKeptEntries most recently written entries and drops the
// others (prune_entries). A hit writes nothing, so an entry that is only ever read ages and may
// be dropped: it costs one miss. Entries are written atomically (a temporary file renamed into place) and carry a
// checksum; a missing, truncated, corrupt or foreign entry is a miss, never an error. Failing to write the cache
// (read-only tree) is silent: the results are the same, only slower.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analyzer/config/configuration.hpp"
#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/pipeline/judge.hpp"
#include "analyzer/project/project.hpp"

namespace trl::cache {

// The default folder name, at the project root (discovery never descends into it).
inline constexpr const char* kDefaultDirName = ".trl-lint_cache";

class ResultCache {
 public:
  // `dir`: the cache folder (absolute). `invocation`: every option that changes findings, as text.
  ResultCache(std::string dir, std::string invocation);

  // Reads this invocation's entry, if any, before the files are read: its record of each file
  // (stamp, content hash, reading outcome) lets read_project skip reading unchanged files.
  void load();
  // Whether this invocation has an entry on disk (before load: whether it can hold records).
  bool has_entry() const;
  // The entry's record of a file (its id in the project being read, and absolute path), or null;
  // and when the records were taken.
  const KnownFile* known(std::size_t id, const std::string& abs_path) const;
  std::int64_t known_since_ns() const { return known_since_ns_; }

  // Computes the key of a project as read_project left it (texts read or vouched for, nothing
  // parsed yet). Resolves the configuration of each folder (may throw ConfigError, as the
  // analysis would).
  void prepare(const Project& project, Configuration& config);
  // The findings stored for this key, or nothing (miss, or a damaged entry). Reads the files
  // the findings point into (read_unread), which must still have the recorded contents.
  // `runs`: set to the number of runs the stored analysis judged. `texts_needed` false: the
  // findings are printed without source lines (concise, JSON, GitHub), and the files vouched for
  // by their stamps stay unread; their columns come from the entry (SourceFile::known_columns).
  std::optional<std::vector<Diagnostic>> lookup(Project& project, const LoadOptions& options,
                                                std::size_t* runs = nullptr, bool texts_needed = true) const;
  // Stores the findings of the analysis of `project` (after extraction). Files still unread (the
  // deferred Python files nothing reached, see read_needed) keep the records they were read on.
  // `read_start_ns`: when this run began reading files (the records' time). With `parts`, the
  // findings of each run and script too (kept_parts). False when the entry could not be written;
  // the cache is then simply not used.
  // `runs`: how many runs the analysis judged (lookup gives it back for the summary line).
  bool store(const Project& project, const std::vector<Diagnostic>& diags, std::int64_t read_start_ns,
             const JudgedParts* parts = nullptr, std::size_t runs = 0) const;

  // After a miss, once `project` is extracted: the parts the entry keeps (analyzer/pipeline/rejudge.hpp),
  // and per file whether its contents changed since, when they may be judged from: the entry's
  // analysis had the same files under the same configuration (frame), and no file that changed
  // holds version pins, then or now. Nothing otherwise, or for a damaged entry.
  struct Kept {
    JudgedParts parts;
    std::vector<char> changed;
  };
  std::optional<Kept> kept_parts(const Project& project) const;

  // The entry file of this invocation, and the file of its parts (kept_parts; removed with the entry).
  std::string entry_path() const;
  std::string parts_path() const;

  // The facts pack of the cache folder (facts_path, one for every invocation: facts depend on
  // the build and the knowledge only; bound to the folder's inode, so a pack that did not come
  // from this folder is never decoded): what extraction found in each file, by path and content
  // hash. After a miss, files whose contents are unchanged take their facts from it
  // instead of being parsed again (take_facts, before extract_project); store_facts writes the
  // facts of every file parsed for this analysis. A damaged or foreign pack is not used.
  std::string facts_path() const;
  // The number of files whose facts came from the pack, decoded on `threads` threads (0: one
  // per core). Their encoded facts are kept, and store_facts writes them back as they were
  // instead of encoding them again.
  std::size_t take_facts(Project& project, unsigned threads = 1);
  bool store_facts(const Project& project) const;

 private:
  std::string dir_;
  std::string invocation_;
  std::uint64_t digest_[2] = {0, 0};
  // The key without the files' contents (kept_parts), made on a miss only; the settings' part of it.
  std::uint64_t frame_digest(const Project& project) const;
  mutable std::optional<std::uint64_t> frame_;
  std::string frame_settings_;
  std::vector<char> deferred_;  // per file: deferred by the pre-filter when read
  // Whether the file system still answers the entry's questions (DiskProbe) as it did: asked once,
  // on the first lookup or kept_parts. The questions, and where the entry goes on after them.
  bool probes_hold() const;
  mutable std::optional<bool> probes_hold_;
  mutable std::vector<DiskProbe> old_probes_;
  mutable std::size_t probes_end_ = 0;
  // kept_parts gave parts: the runs kept from them asked their questions in the entry's analysis.
  mutable bool parts_kept_ = false;
  // The loaded entry.
  std::string entry_;
  std::size_t tail_ = 0;  // offset of the digest in entry_ (0: no usable entry)
  std::int64_t known_since_ns_ = 0;
  // The records of the loaded entry, in the order of the files they were taken of; their paths
  // are views into entry_.
  struct Record {
    std::string_view path;
    KnownFile file;
  };
  std::vector<Record> known_;
  // Index in known_ by path, made on the first lookup a record's index does not answer (from any
  // of the threads reading files).
  mutable std::unordered_map<std::string_view, std::uint32_t> known_by_path_;
  mutable std::unique_ptr<std::once_flag> known_by_path_made_ = std::make_unique<std::once_flag>();
  // The facts pack take_facts read, and per file the encoded facts it took from it (views into
  // pack_; empty for a file whose facts did not come from the pack: an encoding is never empty).
  std::string pack_;
  std::vector<std::string_view> taken_;
};

// Now, in nanoseconds since the epoch (the clock file modification times use).
std::int64_t now_ns();

// How many entries a cache folder keeps (see prune_entries).
inline constexpr std::size_t kKeptEntries = 8;
// Temporary files older than this (an hour) were left by a run that was killed while writing.
inline constexpr std::int64_t kStaleTemporaryNs = std::int64_t{3600} * 1000000000;

// `results-<16 hex digits>.bin`: the name of an entry.
bool is_entry_name(std::string_view name);
// Removes from `dir` the entries beyond the kKeptEntries most recently written (by modification
// time; the same time: by name), with their parts files, the entry named `keep` (the one just
// written) always kept, and temporary files of entries, of parts files and of the facts pack
// older than kStaleTemporaryNs at `now`.
// Touches no other file. Returns how many files it removed.
std::size_t prune_entries(const std::string& dir, const std::string& keep, std::int64_t now);

// A text that identifies this executable's build: version, and size and modification time of
// /proc/self/exe (empty parts when unavailable).
std::string build_identity();

// Encoding of findings (exposed for tests). decode returns nothing for damaged data or spans
// that do not fit the project's files.
std::string encode_diagnostics(const std::vector<Diagnostic>& diags);
std::optional<std::vector<Diagnostic>> decode_diagnostics(std::string_view data, const Project& project);

}  // namespace trl::cache
