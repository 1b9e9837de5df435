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
std::unique_ptr<Rule> make_unreadable_file();
std::unique_ptr<Rule> make_not_utf8_text();
std::unique_ptr<Rule> make_syntax_error();
std::unique_ptr<Rule> make_nesting_too_deep();
std::unique_ptr<Rule> make_file_too_large();
std::unique_ptr<Rule> make_evaluation_too_long();
std::unique_ptr<Rule> make_unused_noqa();

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
    r.push_back(make_unreadable_file());
    r.push_back(make_not_utf8_text());
    r.push_back(make_syntax_error());
    r.push_back(make_nesting_too_deep());
    r.push_back(make_file_too_large());
    r.push_back(make_evaluation_too_long());
    r.push_back(make_unused_noqa());
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

const RuleInfo* find_rule_info(std::string_view code) {
  const Rule* r = find_rule(code);
  return r ? &r->info() : nullptr;
}

std::vector<const RuleInfo*> all_rule_infos() {
  std::vector<const RuleInfo*> out;
  for (const auto& r : all_rules()) out.push_back(&r->info());
  return out;
}

const std::vector<RuleFamily>& rule_families() {
  static const std::vector<RuleFamily> families = {
#define TRL_FAMILY(digit, folder, tag, title, tool) RuleFamily{digit, folder, tag, title, tool},
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
