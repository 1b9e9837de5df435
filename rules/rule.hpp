// The interface every rule implements, and what it reports through. A rule reads the part it
// judges and its RuleContext (rules/rule_context.hpp); it never parses, and never sees the project.
#pragma once

#include <string>
#include <vector>

#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/eval/script_summary.hpp"
#include "analyzer/eval/training_run.hpp"
#include "rules/rule_context.hpp"

namespace trl {

struct RuleInfo {
  std::string code;  // TRL101
  std::string name;  // packing-with-context-parallelism
  Severity severity = Severity::Error;
  std::string summary;  // one line
  std::string doc;      // Markdown: What it does / Why is this bad? / Example / Use instead / References
  // When some findings take another severity than `severity`, when (e.g. "warning when
  // `pad_to_multiple_of` is unset"); shown wherever the severity is.
  std::string severity_note;
  // "error", or "error; warning when ..."
  std::string severity_text() const;
};

// A rule judges three kinds of part, each from its own inputs only, so that a caller may keep
// the findings of a part whose inputs did not change (the LSP server does):
// - a run: its settings, the files it reads (TrainingRun, run_files; through the context: their
//   YAML, its script's trainer calls), and its version targets;
// - an evaluated Python script (for_each_script): its summary (which covers the modules it read)
//   and its version targets;
// - a file: its YAML documents, its version targets, and what the runs say about it (FileUses).
// collect_diagnostics judges different rules on different threads at the same time (one rule's
// calls all on one thread): a rule keeps no state of its own between calls, and the context it
// reads is shared by all of them.
// Where several parts reach one place (two runs read one YAML), the rule sets merge_key.
class Rule {
 public:
  virtual ~Rule() = default;
  virtual const RuleInfo& info() const = 0;
  // Judges one training run.
  virtual void check_run(const TrainingRun&, const RuleContext&, std::vector<Diagnostic>&) const {}
  // Judges one evaluated script: the constructions in it.
  virtual void check_script(const RuleContext&, FileId, const ScriptSummary&, std::vector<Diagnostic>&) const {}
  // Judges one file that holds YAML documents or that a run reads as its accelerate config.
  virtual void check_file(const RuleContext&, FileId, const FileUses&, std::vector<Diagnostic>&) const {}

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
  // The same, merged with the findings of this rule at the same place (Diagnostic::merge_key).
  Diagnostic make_merged(Span span, std::string message, std::string key = {}) const {
    Diagnostic d = make(span, std::move(message));
    d.merge_key = std::move(key);
    return d;
  }
};

}  // namespace trl
