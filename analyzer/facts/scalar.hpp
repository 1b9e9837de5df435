// A scalar value as Python would hold it after loading a config: None, bool, int, float or str.
#pragma once

#include <cstdint>
#include <string>

namespace trl {

struct Scalar {
  enum class Kind { Null, Bool, Int, Float, Str, Timestamp };
  Kind kind = Kind::Null;
  bool b = false;
  std::int64_t i = 0;
  double f = 0.0;
  std::string s;  // Str and Timestamp text; for Int/Float the source spelling

  static Scalar null() { return {}; }
  static Scalar boolean(bool v) {
    Scalar x;
    x.kind = Kind::Bool;
    x.b = v;
    return x;
  }
  static Scalar integer(std::int64_t v) {
    Scalar x;
    x.kind = Kind::Int;
    x.i = v;
    return x;
  }
  static Scalar floating(double v) {
    Scalar x;
    x.kind = Kind::Float;
    x.f = v;
    return x;
  }
  static Scalar string(std::string v) {
    Scalar x;
    x.kind = Kind::Str;
    x.s = std::move(v);
    return x;
  }

  // Python truthiness.
  bool truthy() const;
  // Python repr-like rendering for messages: True, 2, 'text', None.
  std::string repr() const;
  // YAML-like rendering for help lines: true, 2, text, null.
  std::string yaml() const;
  bool operator==(const Scalar& o) const;
};

}  // namespace trl
