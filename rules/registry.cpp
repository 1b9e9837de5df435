#include "rules/registry.hpp"

namespace trl {

// One line per rule; each factory lives in the rule's own file.
std::unique_ptr<Rule> make_unknown_config_key();
std::unique_ptr<Rule> make_yaml_float_read_as_string();
std::unique_ptr<Rule> make_yaml_word_read_as_boolean();
std::unique_ptr<Rule> make_missing_referenced_file();
std::unique_ptr<Rule> make_invalid_choice();
std::unique_ptr<Rule> make_packing_with_context_parallelism();
std::unique_ptr<Rule> make_rl_trainer_with_sequence_parallelism();
std::unique_ptr<Rule> make_context_parallelism_requires_sdpa();
std::unique_ptr<Rule> make_context_parallelism_requires_fsdp2();
std::unique_ptr<Rule> make_cp_sequence_not_divisible();
std::unique_ptr<Rule> make_parallel_sizes_mismatch_world();
std::unique_ptr<Rule> make_context_and_sequence_parallelism();
std::unique_ptr<Rule> make_ignored_parallelism_key();
std::unique_ptr<Rule> make_double_activation_checkpointing();
std::unique_ptr<Rule> make_packing_without_flash_attention();
std::unique_ptr<Rule> make_padding_free_without_flash_attention();
std::unique_ptr<Rule> make_padding_free_without_packing();
std::unique_ptr<Rule> make_wrapped_packing_crosses_documents();
std::unique_ptr<Rule> make_packing_without_max_length();
std::unique_ptr<Rule> make_generation_batch_not_divisible();
std::unique_ptr<Rule> make_eval_batch_not_divisible();
std::unique_ptr<Rule> make_too_few_generations();
std::unique_ptr<Rule> make_generation_batch_and_steps();
std::unique_ptr<Rule> make_generation_batch_not_multiple_of_global();
std::unique_ptr<Rule> make_sync_ref_model_without_beta();
std::unique_ptr<Rule> make_fp16_and_bf16();
std::unique_ptr<Rule> make_best_model_strategy_mismatch();
std::unique_ptr<Rule> make_save_steps_not_multiple_of_eval();
std::unique_ptr<Rule> make_mixed_precision_conflict();
std::unique_ptr<Rule> make_deepspeed_file_conflict();
std::unique_ptr<Rule> make_renamed_argument();
std::unique_ptr<Rule> make_removed_argument();
std::unique_ptr<Rule> make_renamed_value();

const std::vector<std::unique_ptr<Rule>>& all_rules() {
  static const std::vector<std::unique_ptr<Rule>> rules = [] {
    std::vector<std::unique_ptr<Rule>> r;
    r.push_back(make_unknown_config_key());
    r.push_back(make_yaml_float_read_as_string());
    r.push_back(make_yaml_word_read_as_boolean());
    r.push_back(make_missing_referenced_file());
    r.push_back(make_invalid_choice());
    r.push_back(make_packing_with_context_parallelism());
    r.push_back(make_rl_trainer_with_sequence_parallelism());
    r.push_back(make_context_parallelism_requires_sdpa());
    r.push_back(make_context_parallelism_requires_fsdp2());
    r.push_back(make_cp_sequence_not_divisible());
    r.push_back(make_parallel_sizes_mismatch_world());
    r.push_back(make_context_and_sequence_parallelism());
    r.push_back(make_ignored_parallelism_key());
    r.push_back(make_double_activation_checkpointing());
    r.push_back(make_packing_without_flash_attention());
    r.push_back(make_padding_free_without_flash_attention());
    r.push_back(make_padding_free_without_packing());
    r.push_back(make_wrapped_packing_crosses_documents());
    r.push_back(make_packing_without_max_length());
    r.push_back(make_generation_batch_not_divisible());
    r.push_back(make_eval_batch_not_divisible());
    r.push_back(make_too_few_generations());
    r.push_back(make_generation_batch_and_steps());
    r.push_back(make_generation_batch_not_multiple_of_global());
    r.push_back(make_sync_ref_model_without_beta());
    r.push_back(make_fp16_and_bf16());
    r.push_back(make_best_model_strategy_mismatch());
    r.push_back(make_save_steps_not_multiple_of_eval());
    r.push_back(make_mixed_precision_conflict());
    r.push_back(make_deepspeed_file_conflict());
    r.push_back(make_renamed_argument());
    r.push_back(make_removed_argument());
    r.push_back(make_renamed_value());
    return r;
  }();
  return rules;
}

std::string RuleInfo::severity_text() const {
  std::string text = to_string(severity);
  if (!severity_note.empty()) text += "; " + severity_note;
  return text;
}

const Rule* find_rule(std::string_view code) {
  for (const auto& r : all_rules())
    if (r->info().code == code || r->info().name == code) return r.get();
  return nullptr;
}

namespace {

const std::vector<RuleInfo>& file_problem_infos() {
  static const std::vector<RuleInfo> infos = {
      {"TRL901", "unreadable-file", Severity::Warning, "A file could not be read; it was skipped.",
       "## What it does\nReports a file trl-lint could not read (permissions, a file that vanished, an internal "
       "error on that file).\n\n## Why is this bad?\nSettings in that file are invisible, so a run that uses it "
       "cannot be judged.\n\n## Fix\nMake the file readable, or exclude it.\n"},
      {"TRL902", "not-utf8-text", Severity::Warning, "A file is binary or not valid UTF-8; it was skipped.",
       "## What it does\nReports a Python, YAML or shell file that contains NUL bytes or is not valid "
       "UTF-8.\n\n## Why is this bad?\nPython and PyYAML read configs as UTF-8; such a file fails to load or "
       "is not what its name says.\n\n## Fix\nSave the file as UTF-8, or exclude it.\n"},
      {"TRL903", "syntax-error", Severity::Error, "A file a run reads does not parse.",
       "## What it does\nReports a Python or shell file that does not parse, and a YAML or JSON file that "
       "does not load the way Python loads it: YAML as PyYAML's `yaml.safe_load` reads it (YAML 1.1; a "
       "multi-line quoted scalar continued at its key's column loads, a tab between tokens does not), JSON "
       "as Python's `json` module reads it (`NaN`, `Infinity` and `-Infinity` load). The finding points at "
       "the line and column where the loader stops, with its reason (\"mapping values are not allowed "
       "here\", \"found unexpected end of stream while scanning a quoted scalar\"). Values before the "
       "error are still analysed.\n\nA YAML or JSON file is reported only when a run reads it, or when it "
       "is an accelerate or trainer config (known from its keys, such as `distributed_type` or "
       "`model_name_or_path`, or from an `accelerate_config` path): an evaluation task file or a metrics "
       "file that no run reads is not checked.\n\n"
       "## Why is this bad?\n`yaml.safe_load` raises on it, so any launch that reads the file fails at start "
       "(after the cluster allocation).\n\n"
       "## Example\n"
       "```yaml\n"
       "# recipes/sft.yaml\n"
       "model_name_or_path: Qwen/Qwen2.5-0.5B\n"
       "learning_rate: 2.0e-5\n"
       "  packing: true\n"
       "```\n"
       "```bash\n"
       "# launch.sh\n"
       "trl sft --config recipes/sft.yaml\n"
       "```\n"
       "\n"
       "## Use instead\n"
       "```yaml\n"
       "# recipes/sft.yaml\n"
       "model_name_or_path: Qwen/Qwen2.5-0.5B\n"
       "learning_rate: 2.0e-5\n"
       "packing: true\n"
       "```\n"
       "\n"
       "## Fix\nFix the syntax at the reported position.\n"},
      {"TRL904", "nesting-too-deep", Severity::Warning, "A file nests deeper than trl-lint analyses.",
       "## What it does\nReports Python or YAML nested more than a fixed depth; the deeper part is not "
       "analysed.\n\n## Why is this bad?\nReal configs never nest this deep; this is usually generated or "
       "hostile input.\n"},
      {"TRL905", "file-too-large", Severity::Warning, "A file is over the size limit; it was skipped.",
       "## What it does\nReports a file over `--max-file-size` (10 MB by default), which is skipped.\n\n"
       "## Why is this bad?\nSettings in it are invisible to trl-lint.\n\n## Fix\nRaise `--max-file-size`, or "
       "exclude the file.\n"},
      {"TRL906", "evaluation-too-long", Severity::Warning,
       "A script takes more steps to evaluate than trl-lint follows; its settings are not checked.",
       "## What it does\nReports the statement at which trl-lint stopped evaluating a training script: it "
       "follows at most 200,000 statements and calls per script, the modules it imports included. The "
       "settings the script makes (its config objects, trainers, argument parsers, `ParallelismConfig`) are "
       "then treated as unknown, because the unseen rest of the script could change any of them; settings "
       "from the launch line and the accelerate config are still checked.\n\n"
       "## Why is this bad?\nA check that trl-lint cannot make is a problem it cannot report: a run of this "
       "script may break a rule unnoticed. Real training scripts stay far below the limit; generated code "
       "(long unrolled tables, thousands of calls) reaches it.\n\n"
       "## Example\n"
       "```python\n"
       "# train.py\n"
       "# Generated code: each level calls the one below it 4 times, so level9 makes 4**9 calls.\n"
       "from trl import SFTConfig, SFTTrainer\n"
       "\n"
       "def level0(x):\n"
       "    return x\n"
       "\n"
       "def level1(x):\n"
       "    return level0(4 * x) + level0(4 * x + 1) + level0(4 * x + 2) + level0(4 * x + 3)\n"
       "\n"
       "def level2(x):\n"
       "    return level1(4 * x) + level1(4 * x + 1) + level1(4 * x + 2) + level1(4 * x + 3)\n"
       "\n"
       "def level3(x):\n"
       "    return level2(4 * x) + level2(4 * x + 1) + level2(4 * x + 2) + level2(4 * x + 3)\n"
       "\n"
       "def level4(x):\n"
       "    return level3(4 * x) + level3(4 * x + 1) + level3(4 * x + 2) + level3(4 * x + 3)\n"
       "\n"
       "def level5(x):\n"
       "    return level4(4 * x) + level4(4 * x + 1) + level4(4 * x + 2) + level4(4 * x + 3)\n"
       "\n"
       "def level6(x):\n"
       "    return level5(4 * x) + level5(4 * x + 1) + level5(4 * x + 2) + level5(4 * x + 3)\n"
       "\n"
       "def level7(x):\n"
       "    return level6(4 * x) + level6(4 * x + 1) + level6(4 * x + 2) + level6(4 * x + 3)\n"
       "\n"
       "def level8(x):\n"
       "    return level7(4 * x) + level7(4 * x + 1) + level7(4 * x + 2) + level7(4 * x + 3)\n"
       "\n"
       "def level9(x):\n"
       "    return level8(4 * x) + level8(4 * x + 1) + level8(4 * x + 2) + level8(4 * x + 3)\n"
       "\n"
       "table = level9(0)  # the limit (200,000 steps) is reached in here\n"
       "args = SFTConfig(output_dir=\"out\", packing=True)  # never seen\n"
       "SFTTrainer(model=\"Qwen/Qwen2.5-0.5B\", args=args).train()\n"
       "```\n"
       "```bash\n"
       "# launch.sh\n"
       "python train.py\n"
       "```\n"
       "\n"
       "## Use instead\n"
       "```python\n"
       "# train.py\n"
       "import yaml\n"
       "\n"
       "from trl import SFTConfig, SFTTrainer\n"
       "\n"
       "with open(\"table.yaml\") as f:\n"
       "    table = yaml.safe_load(f)\n"
       "args = SFTConfig(output_dir=\"out\", packing=True)\n"
       "SFTTrainer(model=\"Qwen/Qwen2.5-0.5B\", args=args).train()\n"
       "```\n"
       "```yaml\n"
       "# table.yaml\n"
       "# the generated values, computed once and saved\n"
       "values: [0, 1, 2, 3]\n"
       "```\n"
       "\n"
       "## Fix\nKeep generated tables out of the code the training script runs: load them from a data "
       "file instead. The finding can be suppressed like any other (`# noqa: TRL906` on its line).\n"},
      {"TRL910", "unused-noqa", Severity::Warning, "A `noqa` comment suppresses nothing.",
       "## What it does\nReports a `# noqa: TRL...` comment (or a file-level `# trl-lint: noqa: TRL...`) "
       "that names a rule which reports nothing there. Only codes of enabled rules are checked; codes "
       "of other tools (`# noqa: E501`) and bare `# noqa` comments are left alone, since flake8 and "
       "ruff read them too. It also reports a directive with a colon and no code after it (`# noqa:`, "
       "`# noqa: packing-with-context-parallelism`), which suppresses nothing.\n\n"
       "## Why is this bad?\nA stale suppression hides the next real finding on that line: once the "
       "setting is fixed, a later change that breaks it again goes unreported.\n\n"
       "## Example\n"
       "```yaml\n"
       "# recipes/sft.yaml\n"
       "model_name_or_path: Qwen/Qwen2.5-0.5B\n"
       "packing: false  # noqa: TRL101\n"
       "```\n"
       "```bash\n"
       "# launch.sh\n"
       "trl sft --config recipes/sft.yaml\n"
       "```\n"
       "\n"
       "## Use instead\n"
       "```yaml\n"
       "# recipes/sft.yaml\n"
       "model_name_or_path: Qwen/Qwen2.5-0.5B\n"
       "packing: false\n"
       "```\n"
       "\n"
       "## Fix\nThe fix removes the unused codes, or the whole comment when nothing else is left "
       "(safe).\n\n"
       "## Notes\nThe report stage emits this code itself, after every rule has run: only then is it "
       "known which suppressions were used. It can be suppressed like any other code "
       "(`# noqa: TRL101, TRL910`, or `# trl-lint: noqa: TRL910` for a file).\n"},
  };
  return infos;
}

}  // namespace

const RuleInfo* file_problem_info(std::string_view code) {
  for (const auto& i : file_problem_infos())
    if (i.code == code || i.name == code) return &i;
  return nullptr;
}

std::vector<const RuleInfo*> all_rule_infos() {
  std::vector<const RuleInfo*> out;
  for (const auto& r : all_rules()) out.push_back(&r->info());
  for (const auto& i : file_problem_infos()) out.push_back(&i);
  return out;
}

const std::vector<RuleFamily>& rule_families() {
  static const std::vector<RuleFamily> families = {
#define TRL_FAMILY(digit, folder, tag, title) RuleFamily{digit, folder, tag, title},
#include "rules/families.def"
#undef TRL_FAMILY
  };
  return families;
}

const RuleFamily* family_of_code(std::string_view code) {
  if (code.size() < 4 || code.substr(0, 3) != "TRL") return nullptr;
  for (const auto& f : rule_families())
    if (f.digit == code[3]) return &f;
  return nullptr;
}

const char* rule_family(std::string_view code) {
  const RuleFamily* f = family_of_code(code);
  return f ? f->tag : "other";
}

std::string rule_doc_url(std::string_view code) {
  return "https://github.com/trl-lint/trl-lint/blob/main/docs/rules/" + std::string(code) + ".md";
}

}  // namespace trl
