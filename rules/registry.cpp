#include "rules/registry.hpp"

namespace trl {

// One line per rule; each factory lives in the rule's own file.
std::unique_ptr<Rule> make_unknown_config_key();
std::unique_ptr<Rule> make_yaml_float_read_as_string();
std::unique_ptr<Rule> make_yaml_word_read_as_boolean();
std::unique_ptr<Rule> make_invalid_choice();
std::unique_ptr<Rule> make_packing_with_context_parallelism();
std::unique_ptr<Rule> make_renamed_argument();
std::unique_ptr<Rule> make_removed_argument();
std::unique_ptr<Rule> make_renamed_value();

const std::vector<std::unique_ptr<Rule>>& all_rules() {
  static const std::vector<std::unique_ptr<Rule>> rules = [] {
    std::vector<std::unique_ptr<Rule>> r;
    r.push_back(make_unknown_config_key());
    r.push_back(make_yaml_float_read_as_string());
    r.push_back(make_yaml_word_read_as_boolean());
    r.push_back(make_invalid_choice());
    r.push_back(make_packing_with_context_parallelism());
    r.push_back(make_renamed_argument());
    r.push_back(make_removed_argument());
    r.push_back(make_renamed_value());
    return r;
  }();
  return rules;
}

const Rule* find_rule(std::string_view code) {
  for (const auto& r : all_rules())
    if (r->info().code == code || r->info().name == code) return r.get();
  return nullptr;
}

const RuleInfo* file_problem_info(std::string_view code) {
  static const std::vector<RuleInfo> infos = {
      {"TRL901", "unreadable-file", Severity::Warning, "A file could not be read; it was skipped.",
       "## What it does\nReports a file trl-lint could not read (permissions, a file that vanished, an internal "
       "error on that file).\n\n## Why is this bad?\nSettings in that file are invisible, so a run that uses it "
       "cannot be judged.\n\n## Fix\nMake the file readable, or exclude it.\n"},
      {"TRL902", "not-utf8-text", Severity::Warning, "A file is binary or not valid UTF-8; it was skipped.",
       "## What it does\nReports a Python, YAML or shell file that contains NUL bytes or is not valid "
       "UTF-8.\n\n## Why is this bad?\nPython and PyYAML read configs as UTF-8; such a file fails to load or "
       "is not what its name says.\n\n## Fix\nSave the file as UTF-8, or exclude it.\n"},
      {"TRL903", "syntax-error", Severity::Error, "A YAML file does not parse.",
       "## What it does\nReports YAML that does not parse. Values before the error are still analysed.\n\n"
       "## Why is this bad?\n`yaml.safe_load` raises on it, so any launch that reads the file fails at start "
       "(after the cluster allocation).\n\n## Fix\nFix the YAML syntax at the reported position.\n"},
      {"TRL904", "nesting-too-deep", Severity::Warning, "A file nests deeper than trl-lint analyses.",
       "## What it does\nReports Python or YAML nested more than a fixed depth; the deeper part is not "
       "analysed.\n\n## Why is this bad?\nReal configs never nest this deep; this is usually generated or "
       "hostile input.\n"},
      {"TRL905", "file-too-large", Severity::Warning, "A file is over the size limit; it was skipped.",
       "## What it does\nReports a file over `--max-file-size` (10 MB by default), which is skipped.\n\n"
       "## Why is this bad?\nSettings in it are invisible to trl-lint.\n\n## Fix\nRaise `--max-file-size`, or "
       "exclude the file.\n"},
  };
  for (const auto& i : infos)
    if (i.code == code || i.name == code) return &i;
  return nullptr;
}

}  // namespace trl
