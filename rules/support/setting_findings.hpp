// Small helpers the run rules share (namespace support): describing a setting and where it came
// from, picking the span a finding points at, and adding a related location for each
// conflicting value. The helpers that read the context are in rules/support/rule_support.hpp.
#pragma once

#include <initializer_list>
#include <string>

#include "analyzer/knowledge/knowledge.hpp"
#include "rules/rule.hpp"

namespace trl::support {

// `2 (accelerate YAML)`, `True (default)`.
inline std::string shown(const Setting& s) {
  return s.value.yaml() + " (" + (s.origin == Origin::None ? std::string("default") : s.origin_text()) + ")";
}

// The first setting written somewhere in the project, else the launch line.
inline Span primary_span(const TrainingRun& run, std::initializer_list<const Setting*> settings) {
  for (const Setting* s : settings)
    if (s->span.valid()) return s->span;
  return run.launch_span();
}

inline void relate(Diagnostic& d, const Setting& s, const std::string& what) {
  if (s.span.valid() && !(s.span == d.span)) d.related.push_back({s.span, what + " (" + s.origin_text() + ")"});
}

inline void relate_launch(Diagnostic& d, const TrainingRun& run) {
  if (run.launch) d.related.push_back({run.launch->span, "in this launch", true});
}

inline std::optional<std::int64_t> int_of(const Setting& s) {
  return s.as_int();
}

inline bool is_str(const Setting& s, std::string_view v) {
  return s.known() && s.value.kind == Scalar::Kind::Str && s.value.s == v;
}

// GRPO and RLOO (their configs and the trainers derived from them).
inline bool is_rl_generation_trainer(const TrainingRun& run) {
  if (run.config_class) {
    const auto& k = Knowledge::get();
    return k.derives_from(*run.config_class, "GRPOConfig") || k.derives_from(*run.config_class, "RLOOConfig");
  }
  return run.trainer == "grpo" || run.trainer == "rloo";
}

inline std::string trainer_name(const TrainingRun& run) {
  if (run.config_class) return run.config_class->name;
  return run.trainer.empty() ? "the trainer" : run.trainer;
}

// trl/trainer/sft_trainer.py FLASH_ATTENTION_VARIANTS (v1.9.0).
inline bool is_flash_attention(std::string_view a) {
  return a == "flash_attention_2" || a == "flash_attention_3" || a == "kernels-community/flash-attn2" ||
         a == "kernels-community/flash-attn3" || a == "kernels-community/vllm-flash-attn3";
}

}  // namespace trl::support
