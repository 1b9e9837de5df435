// A library version a run or file is judged against (version_targets.hpp finds them), and the
// release arithmetic rules use on them. Plain data: no project needed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "analyzer/source/source_file.hpp"

namespace trl {

class Knowledge;

struct VersionTarget {
  std::string library;
  std::optional<std::string> version;  // none: the pin cannot be resolved (git URL, no known release fits)
  std::string why;                     // "requirements.txt: trl>=0.19.1", "newest known release (no pin found)"
  Span pin;                            // the pin, when one decided it
  // The site-packages folder the version was read from, when the project's environment decided
  // it (absolute): the library's source is there.
  std::string installed_site;
  bool known() const { return version.has_value(); }
  // "TRL 0.19.1 (requirements.txt: trl==0.19.1)"
  std::string describe() const;
};

struct VersionTargets {
  VersionTarget trl, transformers, accelerate;
  const VersionTarget& of(std::string_view library) const;
};

// Compares release strings numerically ("0.10" < "0.9.6" is false); pre-release suffixes
// (".dev0", "rc1") sort before the release. <0, 0, >0.
int compare_versions(std::string_view a, std::string_view b);

// True when `version` satisfies every clause of a PEP 440 specifier list (">=0.19,<0.20", "==0.19.*").
bool satisfies(std::string_view version, std::string_view spec);

// Resolves a specifier against the known releases: `==X` gives X; otherwise the newest known
// release inside the range; none when no known release fits.
std::optional<std::string> resolve_spec(std::string_view spec, const Knowledge& knowledge, std::string_view library);

// True when `target` names a release newer than the newest one the knowledge describes
// (defined in installed_classes.cpp, which reads such a release's source).
bool newer_than_knowledge(const Knowledge& k, const VersionTarget& target);

// Parses `trl=0.19.1` (as given to --target-version) into (library, version); none when malformed.
std::optional<std::pair<std::string, std::string>> parse_target_option(std::string_view text);

}  // namespace trl
