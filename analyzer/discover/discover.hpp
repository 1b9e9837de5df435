// Walks the paths given on the command line and lists the files trl-lint reads, with their
// kind. Skips VCS, build and environment folders and what .gitignore ignores; never follows
// a symlink out of the root.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/facts/file_facts.hpp"
#include "analyzer/source/source_file.hpp"

struct stat;

namespace trl {

// What stat says about a file: a cached content hash stands for the file while these are
// unchanged (as git's index does).
struct FileStamp {
  bool valid = false;
  std::uint64_t dev = 0, ino = 0, size = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};
// The stamp of what `st` describes.
FileStamp stamp_of(const struct ::stat& st);

struct DiscoveredFile {
  std::string abs_path;
  std::string display_path;  // relative to the current directory
  FileKind kind = FileKind::Other;
  // Asked for (discover's `stamp_files`): the file's stamp, taken as its folder was listed
  // (invalid when the file could not be asked about, or was not a regular file by then).
  FileStamp stamp;
};

struct Discovery {
  std::string root;                   // absolute folder runs resolve paths against (the first path given)
  std::vector<DiscoveredFile> files;  // sorted by display path
  std::vector<std::pair<std::string, std::string>> problems;  // (display path, message): skipped entries
  std::vector<std::string> missing;                           // paths given that do not exist
  // Whether `files` had to be sorted after the walk: a single folder walk lists them in order.
  bool sorted_after_walk = false;
};

// `excluded` (absolute path) prunes files and folders met during a folder walk; a file named
// explicitly is read whatever it says. It is called under a lock, from any of the walk's threads.
// `threads`: how many threads may walk folders at once (0: one per core); the result is the same
// for any number.
using ExcludeFn = std::function<bool(const std::string& abs_path)>;
// An entry of a folder's listing. `unsure`: a symbolic link (or an entry whose type could not be
// told), which exists as its target does; what it names is to be asked by path.
struct ListedName {
  std::string_view name;
  bool unsure = false;
};
// `listed` (absolute folder, the entries it holds, sorted by name) is told each folder a walk
// lists whole, under the lock of `excluded` and before `excluded` is asked about anything in it:
// what the listing answers (which configuration files a folder holds) need not be asked of the
// file system again. Not told of a folder skipped for its markers (pyvenv.cfg, CACHEDIR.TAG), nor
// of one whose listing stopped early.
using FolderListedFn = std::function<void(const std::string& abs_dir, const std::vector<ListedName>& names)>;
// `stamp_files`: each file gets its stamp (DiscoveredFile::stamp); a folder walk asks it
// relative to the folder it has open, on the walk's threads. A result cache compares them with
// its records: the one question a second run asks of most files.
Discovery discover(const std::vector<std::string>& paths, const ExcludeFn& excluded = {}, unsigned threads = 0,
                   const FolderListedFn& listed = {}, bool stamp_files = false);

// The root discover() will report for `paths`, without walking: the first existing path (a
// folder itself, a file's folder), else the working folder.
std::string discovery_root(const std::vector<std::string>& paths);

// Folders a walk skips by their name alone (VCS, environments, caches, build output).
bool skipped_dir(const std::string& name);

// Kind by name (and, for files without an extension, by a shell shebang in `head`).
// `folder`: the name of the folder holding the file (a `.txt` in `requirements/` is a requirements
// file: pip-tools' layout, included with `-r requirements/base.txt`; so is `constraints*.txt`,
// included with `-c`).
FileKind classify(const std::string& filename, std::string_view head, std::string_view folder = {});

}  // namespace trl
