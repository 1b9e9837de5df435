#include "analyzer/facts/scalar.hpp"

#include <cmath>
#include <sstream>

namespace trl {

bool Scalar::truthy() const {
  switch (kind) {
    case Kind::Null: return false;
    case Kind::Bool: return b;
    case Kind::Int: return i != 0;
    case Kind::Float: return f != 0.0;
    case Kind::Str:
    case Kind::Timestamp: return !s.empty();
  }
  return false;
}

static std::string format_float(double f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
  std::ostringstream out;
  out.precision(17);
  out << f;
  std::string s = out.str();
  // Shortest form that reads back the same, like Python's repr.
  for (int p = 1; p <= 17; ++p) {
    std::ostringstream o;
    o.precision(p);
    o << f;
    if (std::stod(o.str()) == f) {
      s = o.str();
      break;
    }
  }
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string Scalar::repr() const {
  switch (kind) {
    case Kind::Null: return "None";
    case Kind::Bool: return b ? "True" : "False";
    case Kind::Int: return std::to_string(i);
    case Kind::Float: return format_float(f);
    case Kind::Str:
    case Kind::Timestamp: return "'" + s + "'";
  }
  return "None";
}

std::string Scalar::yaml() const {
  switch (kind) {
    case Kind::Null: return "null";
    case Kind::Bool: return b ? "true" : "false";
    case Kind::Int: return std::to_string(i);
    case Kind::Float: return format_float(f);
    case Kind::Str:
    case Kind::Timestamp: return s;
  }
  return "null";
}

bool Scalar::operator==(const Scalar& o) const {
  if (kind != o.kind) {
    // Python: True == 1, 2 == 2.0
    auto num = [](const Scalar& x, double& out) {
      if (x.kind == Kind::Bool) return out = x.b, true;
      if (x.kind == Kind::Int) return out = static_cast<double>(x.i), true;
      if (x.kind == Kind::Float) return out = x.f, true;
      return false;
    };
    double a, c;
    return num(*this, a) && num(o, c) && a == c;
  }
  switch (kind) {
    case Kind::Null: return true;
    case Kind::Bool: return b == o.b;
    case Kind::Int: return i == o.i;
    case Kind::Float: return f == o.f;
    default: return s == o.s;
  }
}

}  // namespace trl
