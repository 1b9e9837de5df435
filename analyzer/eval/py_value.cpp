#include "analyzer/eval/py_value.hpp"

namespace trl {

const Member* PyValue::member(std::string_view name) const {
  const Member* found = nullptr;
  for (const auto& m : members)
    if (m.name == name) found = &m;
  return found;
}

ValueRef make_unknown(Span span) {
  auto v = std::make_shared<PyValue>();
  v->kind = PyValue::Kind::Unknown;
  v->span = span;
  return v;
}

ValueRef make_const(Scalar s, Span span) {
  auto v = std::make_shared<PyValue>();
  v->kind = PyValue::Kind::Const;
  v->constant = std::move(s);
  v->span = span;
  return v;
}

ValueRef merge_values(const ValueRef& a, const ValueRef& b) {
  if (!a) return b;
  if (!b) return a;
  if (a == b) return a;
  if (a->kind != b->kind) return make_unknown(a->span);
  switch (a->kind) {
    case PyValue::Kind::Const:
      return a->constant == b->constant && a->constant.kind == b->constant.kind ? a : make_unknown(a->span);
    case PyValue::Kind::Symbol: return a->qualified == b->qualified ? a : make_unknown(a->span);
    case PyValue::Kind::Function:
      return a->function == b->function && a->module == b->module ? a : make_unknown(a->span);
    case PyValue::Kind::Object:
    case PyValue::Kind::Dict: {
      if (a->kind == PyValue::Kind::Object && (a->object_id != b->object_id || a->qualified != b->qualified))
        return make_unknown(a->span);
      // Field by field: what both paths agree on stays; the rest becomes unknown.
      auto out = std::make_shared<PyValue>(*a);
      out->members.clear();
      for (const auto& m : a->members) {
        const Member* other = b->member(m.name);
        if (!other) {
          out->members.push_back({m.name, make_unknown(m.set_at), m.set_at});
          continue;
        }
        if (a->member(m.name) != &m) continue;  // only the last duplicate counts
        ValueRef merged = merge_values(m.value, other->value);
        out->members.push_back({m.name, merged, merged == m.value ? m.set_at : other->set_at});
      }
      for (const auto& m : b->members)
        if (!a->member(m.name)) out->members.push_back({m.name, make_unknown(m.set_at), m.set_at});
      out->complete = a->complete && b->complete;
      return out;
    }
    default: return make_unknown(a->span);
  }
}

}  // namespace trl
