// The generation-batch arithmetic of GRPOConfig/RLOOConfig.__post_init__ (trl v0.20.0 .. v1.9.0),
// shared by the TRL30x rules.
#pragma once

#include "rules/rule_support.hpp"

namespace trl::batch {

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
