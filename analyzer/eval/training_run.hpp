// The effective configuration of one training run: trainer, trainer arguments and the
// parallel topology, every value with where it was set.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/facts/scalar.hpp"
#include "analyzer/link/launch.hpp"

namespace trl {

struct ClassInfo;

// A value of the effective configuration.
struct Setting {
  // OneOf: the value differs between paths of the code (an `if` on something unknown); each
  // alternative is known. Rules judge OneOf through all()/min_int(), never known().
  enum class State { Unset, Known, Unknown, OneOf };
  State state = State::Unset;
  Scalar value;                      // Known; for OneOf the first alternative
  std::vector<Scalar> alternatives;  // OneOf
  Span span;                         // where it was set (YAML key, Python keyword, CLI flag); invalid for defaults
  Span value_span;                   // where the value itself was written, when it flowed there from elsewhere
  std::string origin;  // "trainer YAML", "command line", "Python", "accelerate YAML", "environment", "default"
  std::vector<RelatedLocation> chain;  // the way it flowed, for notes

  bool known() const { return state == State::Known; }
  bool known_true() const { return known() && value.truthy(); }
  std::optional<std::int64_t> as_int() const;

  // True when the value is known on every path and `pred` holds for each possibility.
  template <typename Pred>
  bool all(Pred pred) const {
    if (state == State::Known) return pred(value);
    if (state != State::OneOf || alternatives.empty()) return false;
    for (const auto& a : alternatives)
      if (!pred(a)) return false;
    return true;
  }
  // True on every path (Known true, or every alternative true).
  bool definitely_true() const {
    return all([](const Scalar& s) { return s.truthy(); });
  }
  // The smallest integer over every path; nullopt when some path is not a known integer.
  std::optional<std::int64_t> min_int() const;
  // `2`, or `2 or 4` for a OneOf.
  std::string describe() const;
  // Where a finding about this value should point: the literal when it flowed here from another
  // line or file, else where it was set.
  Span primary_span() const;

  static Setting unknown(Span span, std::string origin);
  static Setting known_value(Scalar v, Span span, std::string origin);
};

struct TrainingRun {
  std::string name;                     // "launch.sh:3" or "train.py"
  std::optional<LaunchCommand> launch;  // none for a script no launch names
  FileId launch_file = kNoFile;
  FileId script = kNoFile;
  std::string script_display;  // as named on the launch line
  std::string trainer;         // sft, grpo, dpo, ...; empty when unknown
  const ClassInfo* config_class = nullptr;
  FileId trainer_yaml = kNoFile;
  FileId accelerate_yaml = kNoFile;
  bool args_from_parser = false;  // trainer args come from argv and --config
  // With args_from_parser: the dataclasses the parser fills. Known library classes, the field
  // names of the user's own @dataclass classes, and whether some class could not be resolved
  // (then any key may be valid).
  std::vector<const ClassInfo*> parser_classes;
  std::vector<std::string> user_fields;
  bool parser_classes_complete = true;
  bool args_fully_known = true;   // false: unset fields may still be set somewhere we cannot see

  std::map<std::string, Setting, std::less<>> args;  // explicitly set trainer arguments
  Setting cp_size;
  Setting sp_size;

  // The effective value of a trainer argument: explicit, else the library default, else
  // Unknown (when something we cannot see may set it) or Unset.
  Setting arg(std::string_view field) const;
  // True for SFTTrainer and trainers derived from it (packing is an SFT feature).
  bool is_sft_family() const;
  Span launch_span() const { return launch ? launch->span : Span{}; }
};

}  // namespace trl
