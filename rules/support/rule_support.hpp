// Small helpers shared by rules: spans inside a written word, nearest-name suggestions,
// version targets of a run, and the renames that apply to a class.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/eval/training_run.hpp"
#include "analyzer/eval/version_targets.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/project/project.hpp"

namespace trl::rules {

// The part [offset, offset+length) of `span`, with its points; invalid when out of range.
Span sub_span(const Project& project, Span span, std::uint32_t offset, std::uint32_t length);
// The text `span` covers.
std::string_view span_text(const Project& project, Span span);
// Finds `word` inside `span` (a YAML key, `--flag=value`, a Python `keyword=value`) as a whole
// name, returning its span; invalid when absent.
Span find_word(const Project& project, Span span, std::string_view word, bool to_line_end = false);

// The closest of `candidates` to `name` by edit distance (at most a third of the length), or "".
std::string nearest(std::string_view name, const std::vector<std::string>& candidates);

// The file a run's versions are read for (TrainingRun::version_anchor): its script, else its launch file.
FileId run_anchor(const TrainingRun& run);
// The run's TRL target when it is known and at least `version`; nullopt for an older target or a
// pin no known release fits. A finding that rests on a TRL default or check added in `version` is
// not made otherwise.
std::optional<VersionTarget> trl_target_at_least(const Project& project, const TrainingRun& run,
                                                 std::string_view version);

// "TRL", "transformers", "accelerate"
std::string library_display(std::string_view library);

// How a rename stands at a target version.
enum class RenameState { NotYet, Deprecated, Removed };
// NotYet also when the target is unknown or the deprecation release is not recorded.
RenameState rename_state(const Rename& r, const VersionTarget& target);

// Renames (argument or value) recorded for `cls` or one of its bases, the class's own first.
std::vector<const Rename*> renames_for(const Knowledge& k, const ClassInfo& cls, bool values);
// Same for a class known only by name (trainers of old releases).
std::vector<const Rename*> renames_named(const Knowledge& k, std::string_view cls, bool values);

}  // namespace trl::rules
