// The codes of trl-lint's own findings (TRL9xx): files it could not read or parse, input beyond
// its limits, stale suppressions. Each is a rule like any other, defined in its own file here
// (code, name, severity, summary, doc) and registered in rules/registry.cpp, so that `trl-lint
// rule`, SARIF, --select/--ignore and docs/rules treat it as one; but the stages that find these
// problems report them themselves, naming them by the constants below, and the rules judge
// nothing. This header holds the constants alone, for those stages.
#pragma once

namespace trl::tool_rules {

extern const char kUnreadableFile[];     // TRL901 unreadable-file
extern const char kNotUtf8Text[];        // TRL902 not-utf8-text
extern const char kSyntaxError[];        // TRL903 syntax-error
extern const char kNestingTooDeep[];     // TRL904 nesting-too-deep
extern const char kFileTooLarge[];       // TRL905 file-too-large
extern const char kEvaluationTooLong[];  // TRL906 evaluation-too-long
extern const char kUnusedNoqa[];         // TRL910 unused-noqa

}  // namespace trl::tool_rules
