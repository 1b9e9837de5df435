// Applies the fixes diagnostics carry: picks the fixes allowed (safe, or all with
// --unsafe-fixes), applies non-overlapping ones per file, checks the fixed text parses as well
// as the original, and writes files atomically (or prints a unified diff instead).
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/project/project.hpp"

namespace trl {

struct FixOptions {
  bool unsafe = false;  // also apply fixes marked unsafe
};

struct FileFix {
  FileId file = kNoFile;
  std::string fixed;                 // the whole new text
  std::vector<std::size_t> applied;  // indexes of the diagnostics whose fix is in `fixed`
};

struct FixPlan {
  std::vector<FileFix> files;        // files that change, in file id order
  std::vector<bool> fixed;           // per diagnostic: its fix is in the plan
  std::size_t deferred = 0;          // fixes left out because they overlap another (a later pass)
  std::vector<std::string> refused;  // "path: reason" for files whose fixed text would not parse
};

// Chooses and applies fixes in memory; writes nothing. A fix whose edits overlap an edit
// already taken is deferred; a fix spanning several files is all-or-nothing.
FixPlan plan_fixes(const std::vector<Diagnostic>& diags, const Project& project, const FixOptions& options);

// The bytes of `text` (the file's text as analysed, or a fixed version of it) as they go to disk:
// a file read with a UTF-8 byte order mark holds it as three spaces, which are the mark again
// here. Fixes never edit those three bytes (plan_fixes keeps edits after them).
std::string text_on_disk(const SourceFile& file, std::string_view text);

// Applies `edits` (all in one file, non-overlapping) to `text`.
std::string apply_edits(std::string_view text, std::vector<TextEdit> edits);

// A unified diff (3 lines of context) of one file, `--- a/path` / `+++ b/path`; empty when equal.
std::string unified_diff(const std::string& path, std::string_view before, std::string_view after);

// Writes `fixed` over `file` atomically (temporary file in the same folder, then rename), keeping
// the file's mode. Refuses when the file on disk is no longer the text that was analysed.
// Returns an empty string on success, else the reason it refused.
std::string write_fixed_file(const SourceFile& file, const std::string& fixed);

}  // namespace trl
