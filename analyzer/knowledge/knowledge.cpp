#include "analyzer/knowledge/knowledge.hpp"

#include <stdexcept>

#include "analyzer/util/binary_io.hpp"

namespace trl {

const ClassInfo* Knowledge::find(std::string_view name) const {
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : &it->second;
}

const ClassInfo* Knowledge::find_qualified(std::string_view q) const {
  auto dot = q.rfind('.');
  if (dot == std::string_view::npos) return nullptr;
  const ClassInfo* c = find(q.substr(dot + 1));
  if (!c) return nullptr;
  std::string_view root = q.substr(0, q.find('.'));
  return root == c->package ? c : nullptr;
}

const FieldInfo* Knowledge::field(const ClassInfo& cls, std::string_view name) const {
  // Breadth-first over the bases; the class's own declaration wins.
  std::vector<const ClassInfo*> queue{&cls};
  for (std::size_t i = 0; i < queue.size() && i < 32; ++i) {
    auto it = queue[i]->fields.find(name);
    if (it != queue[i]->fields.end()) return &it->second;
    for (const auto& b : queue[i]->bases)
      if (const ClassInfo* base = find(b)) queue.push_back(base);
  }
  return nullptr;
}

bool Knowledge::derives_from(const ClassInfo& cls, std::string_view ancestor) const {
  std::vector<const ClassInfo*> queue{&cls};
  for (std::size_t i = 0; i < queue.size() && i < 32; ++i) {
    if (queue[i]->name == ancestor) return true;
    for (const auto& b : queue[i]->bases)
      if (const ClassInfo* base = find(b)) queue.push_back(base);
  }
  return false;
}

const AccelerateProfile* Knowledge::accelerate_profile(std::string_view name) const {
  auto it = profiles_.find(name);
  return it == profiles_.end() ? nullptr : &it->second;
}

const LaunchFlag* Knowledge::launch_flag(std::string_view name) const {
  auto it = launch_flags_.find(name);
  return it == launch_flags_.end() ? nullptr : &it->second;
}

}  // namespace trl

// --- The compact binary form -------------------------------------------------------------------
// Layout (analyzer/util/binary_io.hpp encodings): the magic, then the
// classes, the launch flags (by lookup name, aliases included) and the accelerate profiles, each
// as a count followed by its entries; strings are a u32 length and the bytes.

namespace trl {

namespace {

constexpr std::string_view kMagic = "TRLKNOW1";

using bin::Reader;

class Writer : public bin::Writer {
 public:
  void scalar(const Scalar& s) {
    u8(static_cast<std::uint8_t>(s.kind));
    u8(s.b ? 1 : 0);
    u64(static_cast<std::uint64_t>(s.i));
    f64(s.f);
    str(s.s);
  }
};

Scalar read_scalar(Reader& r) {
  Scalar s;
  std::uint8_t kind = r.u8();
  if (kind > static_cast<std::uint8_t>(Scalar::Kind::Timestamp)) Reader::fail();
  s.kind = static_cast<Scalar::Kind>(kind);
  s.b = r.u8() != 0;
  s.i = static_cast<std::int64_t>(r.u64());
  s.f = r.f64();
  s.s = r.str();
  return s;
}

}  // namespace

std::string Knowledge::to_blob() const {
  Writer w;
  w.out.append(kMagic);
  w.u32(static_cast<std::uint32_t>(classes_.size()));
  for (const auto& [name, c] : classes_) {
    w.str(name);
    w.str(c.package);
    w.u8(static_cast<std::uint8_t>(c.role));
    w.str(c.trainer);
    w.strings(c.bases);
    w.str(c.source);
    w.u32(static_cast<std::uint32_t>(c.fields.size()));
    for (const auto& [fname, f] : c.fields) {
      w.str(fname);
      w.str(f.type);
      w.u8(static_cast<std::uint8_t>((f.has_default ? 1 : 0) | (f.nullable ? 2 : 0)));
      w.scalar(f.default_value);
      w.strings(f.choices);
      w.str(f.source);
    }
  }
  w.u32(static_cast<std::uint32_t>(launch_flags_.size()));
  for (const auto& [key, f] : launch_flags_) {
    w.str(key);
    w.str(f.name);
    w.u8(f.takes_value ? 1 : 0);
    w.str(f.type);
  }
  w.u32(static_cast<std::uint32_t>(profiles_.size()));
  for (const auto& [name, p] : profiles_) {
    w.str(name);
    w.str(p.source);
    w.u32(static_cast<std::uint32_t>(p.values.size()));
    for (const auto& [k, v] : p.values) {
      w.str(k);
      w.scalar(v);
    }
  }
  return std::move(w.out);
}

Knowledge Knowledge::from_blob(std::string_view blob) try {
  Knowledge k;
  Reader r(blob);
  r.expect(kMagic);
  for (std::uint32_t n = r.count(); n > 0; --n) {
    std::string name = r.str();
    ClassInfo c;
    c.name = name;
    c.package = r.str();
    std::uint8_t role = r.u8();
    if (role > static_cast<std::uint8_t>(ClassRole::ModelConfig)) Reader::fail();
    c.role = static_cast<ClassRole>(role);
    c.trainer = r.str();
    c.bases = r.strings();
    c.source = r.str();
    for (std::uint32_t m = r.count(); m > 0; --m) {
      FieldInfo f;
      f.name = r.str();
      f.type = r.str();
      std::uint8_t flags = r.u8();
      f.has_default = flags & 1;
      f.nullable = flags & 2;
      f.default_value = read_scalar(r);
      f.choices = r.strings();
      f.source = r.str();
      std::string key = f.name;
      c.fields.emplace_hint(c.fields.end(), std::move(key), std::move(f));
    }
    k.classes_.emplace_hint(k.classes_.end(), std::move(name), std::move(c));
  }
  for (std::uint32_t n = r.count(); n > 0; --n) {
    std::string key = r.str();
    LaunchFlag f;
    f.name = r.str();
    f.takes_value = r.u8() != 0;
    f.type = r.str();
    k.launch_flags_.emplace_hint(k.launch_flags_.end(), std::move(key), std::move(f));
  }
  for (std::uint32_t n = r.count(); n > 0; --n) {
    AccelerateProfile p;
    p.name = r.str();
    p.source = r.str();
    for (std::uint32_t m = r.count(); m > 0; --m) {
      std::string key = r.str();
      p.values.emplace_hint(p.values.end(), std::move(key), read_scalar(r));
    }
    std::string name = p.name;
    k.profiles_.emplace_hint(k.profiles_.end(), std::move(name), std::move(p));
  }
  if (!r.at_end()) Reader::fail();
  return k;
} catch (const bin::BinaryFormatError&) {
  throw std::runtime_error("embedded knowledge data is truncated or malformed");
}

}  // namespace trl
