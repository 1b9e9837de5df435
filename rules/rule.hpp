// The interface every rule implements, and what it reports through. A rule reads runs and
// facts; it never parses.
#pragma once

#include <string>
#include <vector>

#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/eval/training_run.hpp"
#include "analyzer/project/project.hpp"

namespace trl {

struct RuleInfo {
  std::string code;  // TRL101
  std::string name;  // packing-with-context-parallelism
  Severity severity = Severity::Error;
  std::string summary;  // one line
  std::string doc;      // Markdown: What it does / Why is this bad? / Example / Use instead / References
};

// collect_diagnostics judges different rules on different threads at the same time (one rule's
// calls all on one thread): a rule keeps no state of its own between calls, and what it reads
// of the project is read-only by then (the script cache is filled before the threads start).
class Rule {
 public:
  virtual ~Rule() = default;
  virtual const RuleInfo& info() const = 0;
  // Judges one training run.
  virtual void check_run(const TrainingRun&, const Project&, std::vector<Diagnostic>&) const {}
  // Judges the project as a whole (file-level checks).
  virtual void check_project(const Project&, const std::vector<TrainingRun>&, std::vector<Diagnostic>&) const {}

 protected:
  Diagnostic make(Span span, std::string message) const {
    Diagnostic d;
    d.code = info().code;
    d.name = info().name;
    d.severity = info().severity;
    d.span = span;
    d.message = std::move(message);
    return d;
  }
};

}  // namespace trl
