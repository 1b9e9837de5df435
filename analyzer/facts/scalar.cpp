#include "analyzer/facts/scalar.hpp"

#include <cmath>
#include <sstream>

#include "analyzer/facts/scalar_io.hpp"

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

void put_scalar(bin::Writer& w, const Scalar& s) {
  w.u8(static_cast<std::uint8_t>(s.kind));
  w.u8(s.b ? 1 : 0);
  w.u64(static_cast<std::uint64_t>(s.i));
  w.f64(s.f);
  w.str(s.s);
}

Scalar get_scalar(bin::Reader& r) {
  Scalar s;
  const std::uint8_t kind = r.u8();
  if (kind > static_cast<std::uint8_t>(Scalar::Kind::Timestamp)) bin::Reader::fail();
  s.kind = static_cast<Scalar::Kind>(kind);
  s.b = r.u8() != 0;
  s.i = static_cast<std::int64_t>(r.u64());
  s.f = r.f64();
  s.s = r.str();
  return s;
}

}  // namespace trl
