// Baselines: record today's findings so that only new ones are reported (`--write-baseline`,
// `--baseline`). A finding is keyed by its file, its code and the normalised text of its line
// (location.hpp: normalized_line), not by line number, so edits above it do not bring it back.
// Each recorded finding absorbs one current finding with the same key.
//
// The file is JSON: {"version": 1, "findings": [{"path", "code", "line", "count"}]}, sorted, with
// paths relative to the baseline file's folder (so it works from any current directory).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/project/project.hpp"

namespace trl {

struct BaselineError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws BaselineError when the file cannot be written.
void write_baseline(const std::string& file, const std::vector<Diagnostic>& diags, const Project& project);

// Drops the findings the baseline records; returns how many. Throws BaselineError when the file
// is missing or not a baseline.
std::size_t apply_baseline(const std::string& file, std::vector<Diagnostic>& diags, const Project& project);

}  // namespace trl
