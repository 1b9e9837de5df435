// The generation-batch arithmetic of GRPOConfig/RLOOConfig.__post_init__ (trl v0.20.0 .. v1.9.0),
// shared by the TRL30x rules.
#pragma once

#include "rules/support/rule_support.hpp"
#include "rules/support/setting_findings.hpp"

namespace trl::batch {

// True when the run's TRL target makes the check: GRPO from `grpo_since` (GRPOTrainer came in
// 0.14.0 without any of them; trl/trainer/grpo_trainer.py, grpo_config.py), RLOO from the rewrite
// whose RLOOConfig has num_generations (0.22.0; rloo_k before). Older targets, and pins no known
// release fits, are not judged.
inline bool checked_by_target(const RuleContext& context, const TrainingRun& run, std::string_view grpo_since) {
  const bool rloo =
      run.config_class ? Knowledge::get().derives_from(*run.config_class, "RLOOConfig") : run.trainer == "rloo";
  std::string_view since = grpo_since;
  if (rloo && compare_versions(since, "0.22.0") < 0) since = "0.22.0";
  return rules::trl_target_at_least(context, run, since).has_value();
}

struct Numbers {
  Setting per_device;  // per_device_train_batch_size
  Setting grad_accum;  // gradient_accumulation_steps
  Setting gen_batch;   // generation_batch_size (None = derived)
  Setting steps;       // steps_per_generation (None = gradient_accumulation_steps)
  Setting num_generations;
};

inline Numbers read(const TrainingRun& run) {
  return {run.arg("per_device_train_batch_size"), run.arg("gradient_accumulation_steps"),
          run.arg("generation_batch_size"), run.arg("steps_per_generation"), run.arg("num_generations")};
}

inline bool is_null(const Setting& s) {
  return s.known() && s.value.kind == Scalar::Kind::Null;
}

}  // namespace trl::batch
