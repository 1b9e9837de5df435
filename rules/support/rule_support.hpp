// Small helpers shared by rules: spans inside a written word, nearest-name suggestions,
// version targets of a run, and the renames that apply to a class.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/eval/script_summary.hpp"
#include "analyzer/eval/training_run.hpp"
#include "analyzer/eval/version_target.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "rules/rule_context.hpp"

namespace trl::rules {

// The part [offset, offset+length) of `span`, with its points; invalid when out of range.
Span sub_span(const RuleContext& context, Span span, std::uint32_t offset, std::uint32_t length);
// The text `span` covers.
std::string_view span_text(const RuleContext& context, Span span);
// Finds `word` inside `span` (a YAML key, `--flag=value`, a Python `keyword=value`) as a whole
// name, returning its span; invalid when absent.
Span find_word(const RuleContext& context, Span span, std::string_view word, bool to_line_end = false);

// How a user writes `field` = `value` in the place `near` was set: `field=value` in Python,
// `--field value` on a command line, `field: value` in YAML. When `near` was not written anywhere
// (unset, a default), where the run's trainer arguments are written: the trainer YAML, else the
// Python call that sets the others.
std::string assignment(const TrainingRun& run, const Setting& near, std::string_view field, const Scalar& value);

// The closest of `candidates` to `name` by edit distance (at most a third of the length), or "".
std::string nearest(std::string_view name, const std::vector<std::string>& candidates);

// The run's TRL target when it is known and at least `version`; nullopt for an older target or a
// pin no known release fits. A finding that rests on a TRL default or check added in `version` is
// not made otherwise.
std::optional<VersionTarget> trl_target_at_least(const RuleContext& context, const TrainingRun& run,
                                                 std::string_view version);

// The run's accelerate target when it is known and older than `version`: a check or an exemption
// added in `version` does not apply there. nullopt for a newer target or one no known release fits.
std::optional<VersionTarget> accelerate_target_before(const RuleContext& context, const TrainingRun& run,
                                                      std::string_view version);
// The run's TRL target, known or not.
VersionTarget trl_target(const RuleContext& context, const TrainingRun& run);

// Whether attention other than FlashAttention (sdpa, eager, flex) may keep the samples of a
// padding-free or packed batch apart by itself, so that "they attend to each other" is not
// definite. transformers builds a block-diagonal causal mask from position_ids that restart
// (masking_utils `_preprocess_mask_arguments`, `find_packed_sequence_indices`; PR #39194, merged
// 2025-07-03, first in v4.54.0) when the batch has no attention_mask, which TRL's padding-free
// collator leaves out, and no cache. TRL's SFTTrainer passes use_cache=False from 0.22.0
// (compute_loss, PR #3891); before, without gradient checkpointing, a causal LM's own
// use_cache=True makes a DynamicCache and the detection is skipped. Unknown versions: it may.
bool attention_may_separate_packed(const RuleContext& context, const TrainingRun& run);

// The packing strategy of an SFT run as its TRL target applies it. `packing_strategy` came in TRL
// 0.19.0 with default "ffd" (trl/trainer/sft_config.py@v0.19.0); 0.20.0 renamed it "bfd" and made
// that the default (sft_config.py@v0.20.0). From 0.16.0 to 0.18.x packing concatenates the dataset
// and cuts it into rows of max_length, as `wrapped` does later (trl/data_utils.py pack_dataset
// @v0.16.0..v0.18.2): `name` is then "concatenated" whatever the config says (the key does not
// exist there). `name` is empty when not known (an unknown value, an unknown or older target).
struct PackingStrategy {
  Setting setting;                      // the field as set (explicit or the knowledge default)
  std::string name;                     // bfd, bfd_split, bfd-requeue, ffd, wrapped, concatenated, ""
  std::optional<VersionTarget> target;  // the TRL target, when `name` rests on it
};
PackingStrategy packing_strategy(const RuleContext& context, const TrainingRun& run);

// What a call passes for one keyword.
enum class Passed {
  Absent,   // not passed (and no `**kwargs` we could not expand)
  None,     // None on every path
  Value,    // a value that is not None (a constant, an object, a dataset the datasets library
            // loaded or a split of one: `eval_dataset=ds["test"]` after `ds = load_dataset(...)`)
  Unknown,  // may or may not be None: a value we do not model, `x if c else None`, `**kwargs`
};
Passed keyword_passed(const Construction& call, std::string_view name);

// What a call passes by position for the parameter `name` of its class's __init__, from the
// class's `init_positional` knowledge at `target` (the version of the class's library): at each
// position `name` may have there (every recorded one when the target is unknown). Absent: no
// positional argument can bind to `name`; None: every one that can is None; Unknown: one may be a
// value, or the order is not known (not recorded, not knowable at the target, or the target is
// older than the first recorded release) and the call passes arguments by position.
Passed positional_passed(const Construction& call, std::string_view name, const VersionTarget& target);

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

// True when the fields of `library` are known at the target version: it is at or after the
// release the hand-written field lists describe, or the generated release history covers it. A
// release newer than the knowledge is known only when it was read from an environment whose
// source trl-lint reads (RuleContext::installed_class).
bool fields_known_at(const Knowledge& k, const VersionTargets& t, std::string_view library);
// `cls` as the target version of its library has it: the generated release history's class for
// a target older than the hand-written field lists (Knowledge::at); `cls` itself for newer
// targets and classes without history; with the installed source where a library is installed
// newer than the knowledge (RuleContext::installed_class). Null when the history covers the target and says
// the class did not exist then. Its bases of another library whose target is judged by that
// library's history (TrainingArguments at transformers 4.46 under a TRL config) are flattened in
// as that release has them (Knowledge::with_bases_at).
const ClassInfo* class_at_target(const RuleContext& context, const Knowledge& k, const ClassInfo& cls,
                                 const VersionTargets& t);
// For classes built from an installed source (class_at_target): the note saying
// the target is newer than the knowledge and which files were read; "" when none is.
std::string installed_source_note(const Knowledge& k, const std::vector<const ClassInfo*>& classes);
// True when the target of `library` is older than the hand-written field lists and the release
// history covers it.
bool history_judges(const Knowledge& k, const VersionTargets& t, std::string_view library);
// True when the target of `cls`'s library is older than the hand-written field lists.
bool judged_by_history(const Knowledge& k, const ClassInfo& cls, const VersionTargets& t);
// The targets a trainer argument is judged against: "TRL 0.21.0 (requirements.txt: ...)", with
// " and transformers 4.46.0 (...)" when transformers is judged by its release history.
std::string judged_against(const Knowledge& k, const VersionTargets& t);

}  // namespace trl::rules
