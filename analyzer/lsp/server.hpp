// `trl-lint server`: a Language Server Protocol server over stdio. The workspace is analysed
// as the command line does; open documents stand in for their files; every edit re-extracts
// the edited file only (the others keep their facts) and republishes the diagnostics of every
// file that has or had findings, open or not.
#pragma once

#include <istream>
#include <ostream>

#include "analyzer/config/configuration.hpp"

namespace trl::lsp {

struct ServerOptions {
  ConfigOptions config;     // --select / --ignore / --config / --isolated of the command line
  bool log_timing = false;  // each analysis's duration on stderr
};

// Serves until `exit` or end of input. Returns the process exit code (0 after shutdown+exit).
int run_server(std::istream& in, std::ostream& out, const ServerOptions& options);

}  // namespace trl::lsp
