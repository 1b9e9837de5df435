// A deterministic random number generator for the unit tests' generated inputs: a linear
// congruential generator (the constants of Numerical Recipes), the same sequence on every host.
#pragma once

#include <cstdint>

namespace trl::test {

class Lcg {
 public:
  explicit Lcg(std::uint32_t seed) : state_(seed) {}
  std::uint32_t next() { return state_ = state_ * 1664525u + 1013904223u; }

 private:
  std::uint32_t state_;
};

}  // namespace trl::test
