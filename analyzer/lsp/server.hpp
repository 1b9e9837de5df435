// `trl-lint server`: a Language Server Protocol server over stdio. The workspace is analysed
// as the command line does; open documents stand in for their files; every edit re-extracts
// the edited file only (the others keep their facts) and republishes the diagnostics of every
// file that has or had findings, open or not.
#pragma once

#include <cstddef>
#include <istream>
#include <ostream>

#include "analyzer/config/configuration.hpp"
#include "analyzer/project/python_environment.hpp"

namespace trl::lsp {

// What the server did, for tests and the benchmark.
struct ServerStats {
  std::size_t full_parses = 0;         // open documents parsed from scratch
  std::size_t incremental_parses = 0;  // open documents re-parsed from their previous tree
  std::size_t full_analyses = 0;       // every run built and judged
  std::size_t runs_rebuilt = 0;        // runs rebuilt by the last edit (its file takes part in them)
  std::size_t runs_total = 0;          // runs after the last analysis
  std::size_t scripts_evaluated = 0;   // script evaluations the project-wide rules needed, in all
  std::size_t scripts_judged = 0;      // scripts judged by the rules, in all (each kept until it changes)
  std::size_t files_judged = 0;        // files judged by the rules, in all (each kept until it or its uses change)
};

struct ServerOptions {
  ConfigOptions config;     // --select / --ignore / --config / --isolated of the command line
  bool log_timing = false;  // each analysis's duration on stderr
  ServerStats* stats = nullptr;
  // When set, the workspace root whatever the client says (the fuzz target keeps to its folder).
  std::string fixed_root;
  // The Python environments named outside the workspace (`--python`, $VIRTUAL_ENV, $CONDA_PREFIX).
  EnvironmentHints environment_hints;
};

// Serves until `exit` or end of input. Returns the process exit code (0 after shutdown+exit).
int run_server(std::istream& in, std::ostream& out, const ServerOptions& options);

}  // namespace trl::lsp
