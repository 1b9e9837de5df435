// `trl-lint --watch`: checks the project, then checks it again each time one of its files changes
// (is written, added or removed), until interrupted (Ctrl-C). Each check is a run of trl-lint
// itself with the same arguments but `--watch`, so it prints exactly what a plain run prints and
// is served by the result cache: a check after an edit re-analyses what the edit touched.
//
// Changes are found by polling: every `interval` the files trl-lint would read (discover(), with
// the configuration's exclusions) are listed with their size and modification time. A change is
// acted on once the listing has stayed the same for one more interval, so that an editor's or a
// `git checkout`'s burst of writes gives one check, not several.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "analyzer/discover/discover.hpp"

namespace trl {

struct WatchOptions {
  std::vector<std::string> command;  // the check to run: this binary and its arguments, without --watch
  std::vector<std::string> roots;    // the folders whose files are watched (the projects' roots)
  ExcludeFn excluded;                // the configuration's exclusions
  std::chrono::milliseconds interval{500};
  bool clear_screen = false;  // clear the terminal before each check (stdout is a terminal)
};

// Runs the check, then again after each change, until SIGINT or SIGTERM. Returns 0 then; 2 when
// the check cannot be started.
int watch(const WatchOptions& options);

// The listing watch() compares: each file's path, size and modification time, as one string (the
// same files unchanged give the same string). Exposed for tests.
std::string watch_fingerprint(const std::vector<std::string>& roots, const ExcludeFn& excluded);

}  // namespace trl
