#include "analyzer/eval/py_value.hpp"

#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "analyzer/knowledge/knowledge.hpp"

namespace trl {

namespace {
constexpr std::size_t kMaxAlternatives = 8;
constexpr std::size_t kMaxChain = 8;
}  // namespace

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

ValueRef with_step(const ValueRef& v, Span span, std::string note) {
  if (!v || v->kind == PyValue::Kind::Unknown || v->chain.size() >= kMaxChain) return v;
  auto copy = std::make_shared<PyValue>(*v);
  copy->chain.push_back({span, std::move(note)});
  return copy;
}

namespace {

bool same_const(const PyValue& a, const PyValue& b) {
  return a.kind == PyValue::Kind::Const && b.kind == PyValue::Kind::Const && a.constant.kind == b.constant.kind &&
         a.constant == b.constant;
}

// Alternatives of a OneOf, or the value itself.
void alternatives(const ValueRef& v, std::vector<ValueRef>& out) {
  if (v->kind == PyValue::Kind::OneOf) {
    for (const auto& i : v->items) alternatives(i, out);
  } else {
    out.push_back(v);
  }
}

ValueRef default_or_unknown(const PyValue& obj, const std::string& field, Span at) {
  if (obj.cls && !obj.from_parser && obj.complete)
    if (const FieldInfo* f = Knowledge::get().field(*obj.cls, field); f && f->has_default)
      return make_const(f->default_value, at);
  return make_unknown(at);
}

// The member each name resolves to (the last of that name, as PyValue::member finds it), by name:
// merging two dicts of thousands of keys looked each one up in a list.
std::unordered_map<std::string_view, const Member*> members_by_name(const PyValue& v) {
  std::unordered_map<std::string_view, const Member*> out;
  out.reserve(v.members.size());
  for (const auto& m : v.members) out[m.name] = &m;
  return out;
}

ValueRef merge_objects(const ValueRef& a, const ValueRef& b) {
  auto out = std::make_shared<PyValue>(*a);
  out->members.clear();
  const auto in_a = members_by_name(*a), in_b = members_by_name(*b);
  std::unordered_set<std::string_view> added;
  auto add = [&](const Member& m, const PyValue& other,
                 const std::unordered_map<std::string_view, const Member*>& in_other) {
    if (!added.insert(m.name).second) return;
    auto it = in_other.find(m.name);
    const Member* om = it == in_other.end() ? nullptr : it->second;
    ValueRef ov = om ? om->value : default_or_unknown(other, m.name, m.set_at);
    ValueRef merged = merge_values(m.value, ov);
    out->members.push_back({m.name, merged, m.set_at});
  };
  for (const auto& m : a->members)
    if (in_a.at(m.name) == &m) add(m, *b, in_b);
  for (const auto& m : b->members)
    if (in_b.at(m.name) == &m) add(m, *a, in_a);
  out->complete = a->complete && b->complete;
  // Two different dicts, one on each path: a change to the result is a change to neither.
  if (a->kind == PyValue::Kind::Dict && a->object_id != b->object_id) out->object_id = 0;
  out->from_parser = a->from_parser || b->from_parser;
  out->parser_reads_config = a->parser_reads_config || b->parser_reads_config;
  return out;
}

}  // namespace

ValueRef merge_values(const ValueRef& a, const ValueRef& b) {
  if (!a) return b;
  if (!b) return a;
  if (a == b) return a;
  if (a->kind == PyValue::Kind::Unknown && b->kind == PyValue::Kind::Unknown && a->not_none && b->not_none) {
    ValueRef v = make_unknown(a->span);
    std::const_pointer_cast<PyValue>(v)->not_none = true;
    return v;
  }
  if (a->kind == PyValue::Kind::Unknown || b->kind == PyValue::Kind::Unknown) return make_unknown(a->span);
  if (same_const(*a, *b)) return a;
  if (a->kind == b->kind) {
    switch (a->kind) {
      case PyValue::Kind::Symbol:
      case PyValue::Kind::Module:
      case PyValue::Kind::Path:
        if (a->qualified == b->qualified && a->module_file == b->module_file) return a;
        break;
      case PyValue::Kind::Function:
      case PyValue::Kind::Class:
        if (a->function == b->function && a->module_file == b->module_file) return a;
        break;
      case PyValue::Kind::Object:
        // The same object on both paths, or two constructions of the same class: field by field.
        if (a->qualified == b->qualified && a->cls == b->cls) return merge_objects(a, b);
        return make_unknown(a->span);
      case PyValue::Kind::Dict: return merge_objects(a, b);
      default: break;
    }
  }
  // Constants that differ: one of them.
  std::vector<ValueRef> alts;
  alternatives(a, alts);
  alternatives(b, alts);
  std::vector<ValueRef> unique;
  for (const auto& v : alts) {
    if (v->kind != PyValue::Kind::Const) return make_unknown(a->span);
    bool seen = false;
    for (const auto& u : unique) seen = seen || same_const(*u, *v);
    if (!seen) unique.push_back(v);
  }
  if (unique.size() == 1) return unique.front();
  if (unique.size() > kMaxAlternatives) return make_unknown(a->span);
  auto one = std::make_shared<PyValue>();
  one->kind = PyValue::Kind::OneOf;
  one->items = std::move(unique);
  one->span = a->span;
  return one;
}

}  // namespace trl
