#include "analyzer/knowledge/knowledge.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyzer/facts/scalar_io.hpp"
#include "analyzer/knowledge/history_store.hpp"
#include "analyzer/util/binary_io.hpp"

namespace trl {

std::uint64_t Knowledge::fingerprint(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

Knowledge::Knowledge() : history_(std::make_unique<HistoryStore>()) {}
Knowledge::~Knowledge() = default;
Knowledge::Knowledge(Knowledge&&) noexcept = default;
Knowledge& Knowledge::operator=(Knowledge&&) noexcept = default;

const std::map<std::string, LibraryHistory, std::less<>>& Knowledge::histories() const {
  HistoryStore& h = *history_;
  std::call_once(h.decoded, [&] {
    if (!h.blob.empty()) {
      try {
        h.libraries = decode_history(h.blob);
      } catch (const bin::BinaryFormatError&) {
        throw std::runtime_error("embedded knowledge history is truncated or malformed");
      }
      std::string().swap(h.blob);
    }
    for (const auto& [lib, history] : h.libraries)
      for (const auto& [name, cls] : history.classes) h.by_class.emplace(name, &cls);
  });
  return h.libraries;
}

// Defined here, not in history.cpp, because the build-time generator (which does not link
// history.cpp) derives the renames' versions with it: releases are compared by their position
// in the history's release list.
RenameHistory Knowledge::rename_history(const Rename& r) const {
  RenameHistory out;
  if (r.is_value || r.old_name.empty()) return out;
  const auto& libs = histories();
  auto history_of = [&](std::string_view cls) -> const ClassHistory* {
    auto it = history_->by_class.find(cls);
    return it == history_->by_class.end() ? nullptr : it->second;
  };
  // The rename's class, then its bases breadth first: the first whose history has the old name.
  std::vector<std::string> lineage{r.cls};
  for (std::size_t i = 0; i < lineage.size() && lineage.size() < 32; ++i)
    if (const ClassInfo* c = find(lineage[i]))
      for (const auto& b : c->bases)
        if (std::find(lineage.begin(), lineage.end(), b) == lineage.end()) lineage.push_back(b);
  const ClassHistory* h = nullptr;
  const std::vector<ClassHistory::FieldSpan>* spans = nullptr;
  for (const auto& name : lineage) {
    h = history_of(name);
    if (!h) continue;
    auto it = h->fields.find(r.old_name);
    if (it != h->fields.end() && !it->second.empty()) {
      spans = &it->second;
      break;
    }
  }
  if (!spans) return trainer_rename_history(r, lineage);
  const auto lib = libs.find(h->library);
  if (lib == libs.end()) return out;
  out.described = true;
  const auto& releases = lib->second.releases;
  for (const auto& fs : *spans)
    if (fs.deprecated) {
      out.deprecated = fs.from;
      out.deprecated_at_first = !releases.empty() && fs.from == releases.front();
      out.deprecated_source = fs.info.source + " (release history: the help text says deprecated" +
                              (out.deprecated_at_first ? " already at its first release" : "") + ")";
      break;
    }
  auto pos = [&](const std::string& v) { return std::find(releases.begin(), releases.end(), v) - releases.begin(); };
  const ClassHistory::FieldSpan& last = spans->back();
  const auto next = static_cast<std::size_t>(pos(last.to)) + 1;
  if (next > releases.size()) return out;
  if (next == releases.size()) {  // the newest scanned release has it
    // The hand-written field lists may describe a later release than the history scans
    // (transformers: the history to 5.1.0, the lists of 5.2.0): whether that release still has
    // the old name is what those lists say.
    const LibraryReleases* lists = library(h->library);
    if (lists && !lists->fields_complete_from.empty() &&
        std::find(releases.begin(), releases.end(), lists->fields_complete_from) == releases.end()) {
      const ClassInfo* now = find(h->name);
      if (!now || now->fields.empty()) return out;
      out.removal_known = true;
      if (!field(*now, r.old_name)) {
        out.removed = lists->fields_complete_from;
        out.removed_source = last.info.source + " (release history); not in " + now->source + " (the field lists of " +
                             lists->fields_complete_from + ")";
      }
      return out;
    }
    out.removal_known = true;
    return out;
  }
  // The class at the next release: its field list is complete only when every base is a class
  // this knowledge describes (a base the tables do not follow may still declare the old name).
  for (const auto& span : h->spans) {
    if (static_cast<std::size_t>(pos(span.from)) > next || static_cast<std::size_t>(pos(span.to)) < next) continue;
    for (const auto& b : span.bases)
      if (!find(b) && !history_of(b)) return out;
    out.removal_known = true;
    out.removed = releases[next];
    out.removed_source = last.info.source + " (release history: not in v" + releases[next] + ")";
  }
  return out;
}

const TrainerHistory* Knowledge::trainer_history(std::string_view cls) const {
  for (const auto& [name, lib] : histories())
    if (auto it = lib.trainers.find(cls); it != lib.trainers.end()) return &it->second;
  return nullptr;
}

// rename_history for a trainer keyword: the ranges of the old name among the __init__ parameters
// (or deprecate_kwarg aliases) of the rename's class or the first of `lineage` that has it.
RenameHistory Knowledge::trainer_rename_history(const Rename& r, const std::vector<std::string>& lineage) const {
  RenameHistory out;
  const LibraryHistory* lib = nullptr;
  const TrainerHistory* th = nullptr;
  const std::vector<TrainerHistory::ParamSpan>* spans = nullptr;
  for (const auto& name : lineage) {
    for (const auto& entry : histories()) {
      auto t = entry.second.trainers.find(name);
      if (t == entry.second.trainers.end()) continue;
      auto p = t->second.params.find(r.old_name);
      if (p == t->second.params.end() || p->second.empty()) continue;
      lib = &entry.second;
      th = &t->second;
      spans = &p->second;
      break;
    }
    if (spans) break;
  }
  if (!spans) return out;
  out.described = true;
  const auto& releases = lib->releases;
  for (const auto& ps : *spans)
    if (ps.deprecated) {
      out.deprecated = ps.from;
      out.deprecated_at_first = !releases.empty() && ps.from == releases.front();
      const std::string first = out.deprecated_at_first ? " already at its first release" : "";
      out.deprecated_source =
          ps.source + (ps.kind == "alias"
                           ? " (release history: deprecate_kwarg takes it for `" + ps.new_name + "`" + first + ")"
                           : " (release history: the __init__ deprecates it" + first + ")");
      break;
    }
  auto pos = [&](const std::string& v) {
    return static_cast<std::size_t>(std::find(releases.begin(), releases.end(), v) - releases.begin());
  };
  const auto next = pos(spans->back().to) + 1;
  if (next > releases.size()) return out;
  if (next == releases.size()) {  // the newest scanned release has it
    out.removal_known = true;
    return out;
  }
  // The trainer at the next release: its parameters are known and none is `**kwargs` (which may
  // take the old name).
  for (const auto& span : th->spans) {
    if (pos(span.from) > next || pos(span.to) < next) continue;
    if (!span.params_known) return out;
    for (const auto& [pname, pspans] : th->params)
      for (const auto& ps : pspans)
        if (ps.kind == "varkw" && pos(ps.from) <= next && next <= pos(ps.to)) return out;
    out.removal_known = true;
    out.removed = releases[next];
    out.removed_source =
        spans->back().source + " (release history: not an __init__ parameter in v" + releases[next] + ")";
  }
  return out;
}

const ClassInfo* Knowledge::find(std::string_view name) const {
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : &it->second;
}

namespace {

// `dataclass_types` of trl/scripts/<command>.py (TRL v1.9.0): grpo and rloo parse their own
// GRPOScriptArguments / RLOOScriptArguments (ScriptArguments plus `reward_funcs` and
// `reward_model_name_or_path`); the others parse ScriptArguments.
struct TrlCliCommand {
  std::string_view command, script_args, config;
};
constexpr TrlCliCommand kTrlCli[] = {
    {"sft", "ScriptArguments", "SFTConfig"},       {"dpo", "ScriptArguments", "DPOConfig"},
    {"grpo", "GRPOScriptArguments", "GRPOConfig"}, {"kto", "ScriptArguments", "KTOConfig"},
    {"reward", "ScriptArguments", "RewardConfig"}, {"rloo", "RLOOScriptArguments", "RLOOConfig"},
};

}  // namespace

const ClassInfo* Knowledge::trl_cli_config(std::string_view command) const {
  for (const auto& c : kTrlCli)
    if (c.command == command) return find(c.config);
  return nullptr;
}

std::vector<const ClassInfo*> Knowledge::trl_cli_classes(std::string_view command) const {
  std::vector<const ClassInfo*> out;
  for (const auto& c : kTrlCli) {
    if (c.command != command) continue;
    for (auto name :
         {c.config, c.script_args, std::string_view("ModelConfig"), std::string_view("DatasetMixtureConfig")})
      if (const ClassInfo* cls = find(name)) out.push_back(cls);
  }
  return out;
}

const ClassInfo* Knowledge::find_qualified(std::string_view q) const {
  auto dot = q.rfind('.');
  if (dot == std::string_view::npos) return nullptr;
  const ClassInfo* c = find(q.substr(dot + 1));
  if (!c) return nullptr;
  std::string_view root = q.substr(0, q.find('.'));
  return root == c->package ? c : nullptr;
}

namespace {

// The classes whose fields `cls` has, in the order they are looked at: breadth-first over the
// bases, the class itself first, at most 32 of them (a cycle of bases ends there).
template <typename Find>
std::vector<const ClassInfo*> lookup_order(const ClassInfo& cls, Find find) {
  std::vector<const ClassInfo*> queue{&cls};
  for (std::size_t i = 0; i < queue.size() && i < 32; ++i)
    for (const auto& b : queue[i]->bases)
      if (const ClassInfo* base = find(b)) queue.push_back(base);
  if (queue.size() > 32) queue.resize(32);
  return queue;
}

}  // namespace

void Knowledge::index_fields() {
  fields_of_.clear();
  for (const auto& [name, cls] : classes_) fields_of_.emplace(&cls, std::make_unique<FieldIndex>());
}

const FieldInfo* Knowledge::field(const ClassInfo& cls, std::string_view name) const {
  auto indexed = fields_of_.find(&cls);
  if (indexed != fields_of_.end()) {
    FieldIndex& index = *indexed->second;
    std::call_once(index.filled, [&] {
      // The first class in the lookup order that declares a name wins (the class's own
      // declaration first).
      for (const ClassInfo* c : lookup_order(cls, [&](std::string_view b) { return find(b); }))
        for (const auto& [field_name, info] : c->fields) index.fields.emplace(field_name, &info);
    });
    auto it = index.fields.find(name);
    return it == index.fields.end() ? nullptr : it->second;
  }
  // A class that is not one of ours (built by a caller): the same search, done now.
  for (const ClassInfo* c : lookup_order(cls, [&](std::string_view b) { return find(b); })) {
    auto it = c->fields.find(name);
    if (it != c->fields.end()) return &it->second;
  }
  return nullptr;
}

namespace {
// The names of `cls` and its bases, breadth first, at most 32 classes deep into the search.
template <typename Find>
std::vector<std::string_view> lineage_of(const ClassInfo& cls, Find find) {
  std::vector<const ClassInfo*> queue{&cls};
  std::vector<std::string_view> names;
  for (std::size_t i = 0; i < queue.size() && i < 32; ++i) {
    names.push_back(queue[i]->name);
    for (const auto& b : queue[i]->bases)
      if (const ClassInfo* base = find(b)) queue.push_back(base);
  }
  return names;
}
}  // namespace

bool Knowledge::derives_from(const ClassInfo& cls, std::string_view ancestor) const {
  auto indexed = fields_of_.find(&cls);
  if (indexed == fields_of_.end()) {  // a class that is not one of ours: searched now
    const auto names = lineage_of(cls, [&](std::string_view b) { return find(b); });
    return std::find(names.begin(), names.end(), ancestor) != names.end();
  }
  FieldIndex& index = *indexed->second;
  std::call_once(index.lineage_filled,
                 [&] { index.lineage = lineage_of(cls, [&](std::string_view b) { return find(b); }); });
  return std::find(index.lineage.begin(), index.lineage.end(), ancestor) != index.lineage.end();
}

const Patcher* Knowledge::patcher_of_module(std::string_view dotted) const {
  for (const auto& [name, p] : patchers_)
    for (const auto& m : p.modules)
      if (dotted == m || (dotted.size() > m.size() && dotted.substr(0, m.size()) == m && dotted[m.size()] == '.'))
        return &p;
  return nullptr;
}

const PatchedClass* Knowledge::patched_class(const Patcher& p, const ClassInfo& cls) const {
  for (const auto& [cname, pc] : p.classes)
    if (derives_from(cls, cname)) return &pc;
  return nullptr;
}

bool Knowledge::patched_accepts(const std::vector<const Patcher*>& patchers, const ClassInfo& cls,
                                std::string_view name) const {
  for (const Patcher* p : patchers)
    for (const auto& [cname, pc] : p->classes)
      if (derives_from(cls, cname) && std::find(pc.accepts.begin(), pc.accepts.end(), name) != pc.accepts.end())
        return true;
  return false;
}

bool Knowledge::patched_value(const std::vector<const Patcher*>& patchers, const ClassInfo& cls, std::string_view field,
                              std::string_view value) const {
  for (const Patcher* p : patchers)
    for (const auto& [cname, pc] : p->classes) {
      if (!derives_from(cls, cname)) continue;
      auto it = pc.values.find(field);
      if (it != pc.values.end() && std::find(it->second.begin(), it->second.end(), value) != it->second.end())
        return true;
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

const std::map<std::string, FieldInfo, std::less<>>* Knowledge::accelerate_section(std::string_view section) const {
  auto it = accelerate_sections_.find(section);
  return it == accelerate_sections_.end() ? nullptr : &it->second;
}

const LibraryReleases* Knowledge::library(std::string_view name) const {
  auto it = libraries_.find(name);
  return it == libraries_.end() ? nullptr : &it->second;
}

std::string Knowledge::library_of(std::string_view cls) const {
  if (const ClassInfo* c = find(cls); c && !c->package.empty()) return c->package;
  // Classes named only by renames (e.g. trainers of old releases) are TRL's unless known otherwise.
  if (cls == "PreTrainedModel") return "transformers";
  return "trl";
}

}  // namespace trl

// --- The compact binary form -------------------------------------------------------------------
// Layout (analyzer/util/binary_io.hpp encodings): the magic, then the classes, the launch flags
// (by lookup name, aliases included), the accelerate profiles, the renames, the accelerate config
// sections and the library releases, each as a count followed by its entries.

namespace trl {

namespace {

constexpr std::string_view kMagic = "TRLKNOW1";

using bin::Reader;

class Writer : public bin::Writer {
 public:
  void scalar(const Scalar& s) { put_scalar(*this, s); }
};

void put_field(Writer& w, const FieldInfo& f) {
  w.str(f.name);
  w.str(f.type);
  w.u8(static_cast<std::uint8_t>((f.has_default ? 1 : 0) | (f.nullable ? 2 : 0) | (f.accepts_bool ? 4 : 0)));
  w.scalar(f.default_value);
  w.strings(f.choices);
  w.str(f.source);
}

FieldInfo read_field(Reader& r) {
  FieldInfo f;
  f.name = r.str();
  f.type = r.str();
  std::uint8_t flags = r.u8();
  f.has_default = flags & 1;
  f.nullable = flags & 2;
  f.accepts_bool = flags & 4;
  f.default_value = get_scalar(r);
  f.choices = r.strings();
  f.source = r.str();
  return f;
}

}  // namespace

// The history: per library its releases (ranges are indices into them, one byte each), a table of
// the file names, then each class's spans and each field's ranges.
std::string encode_history(const std::map<std::string, LibraryHistory, std::less<>>& libraries) {
  Writer w;
  w.u32(static_cast<std::uint32_t>(libraries.size()));
  for (const auto& entry : libraries) {
    // (Named references, not structured bindings: clang 14, which builds the fuzzers, cannot
    // capture a structured binding in a lambda.)
    const std::string& name = entry.first;
    const LibraryHistory& lib = entry.second;
    w.str(name);
    w.strings(lib.releases);
    auto index = [&](const std::string& v) {
      auto it = std::find(lib.releases.begin(), lib.releases.end(), v);
      if (it == lib.releases.end() || lib.releases.size() > 255)
        throw std::runtime_error("history of " + name + ": range end " + v + " is not a listed release");
      return static_cast<std::uint8_t>(it - lib.releases.begin());
    };
    std::vector<std::string> files;
    auto file_index = [&](const std::string& f) {
      auto it = std::find(files.begin(), files.end(), f);
      if (it == files.end()) {
        files.push_back(f);
        return static_cast<std::uint32_t>(files.size() - 1);
      }
      return static_cast<std::uint32_t>(it - files.begin());
    };
    Writer body;
    body.u32(static_cast<std::uint32_t>(lib.classes.size()));
    for (const auto& [cname, c] : lib.classes) {
      body.str(cname);
      body.u32(static_cast<std::uint32_t>(c.spans.size()));
      for (const auto& sp : c.spans) {
        body.u8(index(sp.from));
        body.u8(index(sp.to));
        body.u32(file_index(sp.file));
        body.strings(sp.bases);
      }
      body.u32(static_cast<std::uint32_t>(c.fields.size()));
      for (const auto& [fname, spans] : c.fields) {
        body.str(fname);
        body.u32(static_cast<std::uint32_t>(spans.size()));
        for (const auto& fs : spans) {
          const FieldInfo& f = fs.info;
          body.u8(index(fs.from));
          body.u8(index(fs.to));
          body.str(f.type);
          body.u8(static_cast<std::uint8_t>((f.has_default ? 1 : 0) | (f.nullable ? 2 : 0) | (fs.deprecated ? 4 : 0)));
          put_scalar(body, f.default_value);
          body.strings(f.choices);
          // The file part of the source ("file@v0.1..v0.2"), from the table.
          body.u32(file_index(source_file(f.source)));
        }
      }
    }
    body.u32(static_cast<std::uint32_t>(lib.trainers.size()));
    for (const auto& [tname, th] : lib.trainers) {
      body.str(tname);
      body.u32(static_cast<std::uint32_t>(th.spans.size()));
      for (const auto& sp : th.spans) {
        body.u8(index(sp.from));
        body.u8(index(sp.to));
        body.u32(file_index(sp.file));
        body.str(sp.init_src);
        body.u8(sp.params_known ? 1 : 0);
      }
      body.u32(static_cast<std::uint32_t>(th.params.size()));
      for (const auto& [pname, spans] : th.params) {
        body.str(pname);
        body.u32(static_cast<std::uint32_t>(spans.size()));
        for (const auto& ps : spans) {
          body.u8(index(ps.from));
          body.u8(index(ps.to));
          body.u32(static_cast<std::uint32_t>(ps.pos + 1));  // -1 (an alias) as 0
          body.str(ps.kind);
          body.u8(static_cast<std::uint8_t>((ps.required ? 1 : 0) | (ps.deprecated ? 2 : 0)));
          body.str(ps.new_name);
          body.u32(file_index(source_file(ps.source)));
        }
      }
    }
    w.strings(files);
    w.out += body.out;
  }
  return std::move(w.out);
}

std::map<std::string, LibraryHistory, std::less<>> decode_history(std::string_view blob) {
  std::map<std::string, LibraryHistory, std::less<>> out;
  Reader r(blob);
  for (std::uint32_t n = r.count(); n > 0; --n) {
    LibraryHistory lib;
    lib.library = r.str();
    lib.releases = r.strings();
    const std::vector<std::string> files = r.strings();
    auto release = [&](std::uint8_t i) -> const std::string& {
      if (i >= lib.releases.size()) Reader::fail();
      return lib.releases[i];
    };
    auto file = [&](std::uint32_t i) -> const std::string& {
      if (i >= files.size()) Reader::fail();
      return files[i];
    };
    for (std::uint32_t m = r.count(); m > 0; --m) {
      ClassHistory c;
      c.name = r.str();
      c.library = lib.library;
      for (std::uint32_t k = r.count(); k > 0; --k) {
        ClassHistory::Span sp;
        sp.from = release(r.u8());
        sp.to = release(r.u8());
        sp.file = file(r.u32());
        sp.bases = r.strings();
        c.spans.push_back(std::move(sp));
      }
      for (std::uint32_t k = r.count(); k > 0; --k) {
        std::string fname = r.str();
        auto& spans = c.fields[fname];
        for (std::uint32_t j = r.count(); j > 0; --j) {
          ClassHistory::FieldSpan fs;
          fs.from = release(r.u8());
          fs.to = release(r.u8());
          FieldInfo& f = fs.info;
          f.name = fname;
          f.type = r.str();
          const std::uint8_t flags = r.u8();
          f.has_default = flags & 1;
          f.nullable = flags & 2;
          fs.deprecated = flags & 4;
          f.default_value = get_scalar(r);
          f.choices = r.strings();
          f.source = range_source(file(r.u32()), fs.from, fs.to);
          spans.push_back(std::move(fs));
        }
      }
      std::string name = c.name;
      lib.classes.emplace(std::move(name), std::move(c));
    }
    for (std::uint32_t m = r.count(); m > 0; --m) {
      TrainerHistory th;
      th.name = r.str();
      for (std::uint32_t k = r.count(); k > 0; --k) {
        TrainerHistory::Span sp;
        sp.from = release(r.u8());
        sp.to = release(r.u8());
        sp.file = file(r.u32());
        sp.init_src = r.str();
        sp.params_known = r.u8() != 0;
        th.spans.push_back(std::move(sp));
      }
      for (std::uint32_t k = r.count(); k > 0; --k) {
        std::string pname = r.str();
        auto& spans = th.params[pname];
        for (std::uint32_t j = r.count(); j > 0; --j) {
          TrainerHistory::ParamSpan ps;
          ps.from = release(r.u8());
          ps.to = release(r.u8());
          ps.pos = static_cast<int>(r.u32()) - 1;
          ps.kind = r.str();
          const std::uint8_t flags = r.u8();
          ps.required = flags & 1;
          ps.deprecated = flags & 2;
          ps.new_name = r.str();
          ps.source = range_source(file(r.u32()), ps.from, ps.to);
          spans.push_back(std::move(ps));
        }
      }
      std::string name = th.name;
      lib.trainers.emplace(std::move(name), std::move(th));
    }
    std::string name = lib.library;
    out.emplace(std::move(name), std::move(lib));
  }
  if (!r.at_end()) Reader::fail();
  return out;
}

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
      put_field(w, f);
    }
    w.u32(static_cast<std::uint32_t>(c.init_positional.size()));
    for (const PositionalParams& pp : c.init_positional) {
      w.str(pp.from);
      w.strings(pp.params);
      w.str(pp.source);
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
  w.u32(static_cast<std::uint32_t>(renames_.size()));
  for (const Rename& rn : renames_) {
    w.str(rn.cls);
    w.str(rn.old_name);
    w.str(rn.new_name);
    w.str(rn.field);
    w.u8(static_cast<std::uint8_t>((rn.is_value ? 1 : 0) | (rn.unsafe_fix ? 2 : 0) | (rn.no_fix ? 4 : 0) |
                                   (rn.deprecated_or_earlier ? 8 : 0)));
    w.scalar(rn.old_value);
    w.scalar(rn.new_value);
    w.str(rn.deprecated);
    w.str(rn.removed);
    w.str(rn.note);
    w.str(rn.source);
    w.str(rn.deprecated_source);
    w.str(rn.removed_source);
  }
  w.u32(static_cast<std::uint32_t>(accelerate_sections_.size()));
  for (const auto& [section, keys] : accelerate_sections_) {
    w.str(section);
    w.u32(static_cast<std::uint32_t>(keys.size()));
    for (const auto& [k, f] : keys) {
      w.str(k);
      put_field(w, f);
    }
  }
  w.u32(static_cast<std::uint32_t>(libraries_.size()));
  for (const auto& [name, lib] : libraries_) {
    w.str(name);
    w.str(lib.name);
    w.strings(lib.releases);
    w.str(lib.newest);
    w.str(lib.fields_complete_from);
    w.str(lib.source);
  }
  w.u32(static_cast<std::uint32_t>(patchers_.size()));
  for (const auto& [name, p] : patchers_) {
    w.str(name);
    w.strings(p.modules);
    w.str(p.source);
    w.u32(static_cast<std::uint32_t>(p.classes.size()));
    for (const auto& [cname, pc] : p.classes) {
      w.str(cname);
      w.u8(pc.rebinds ? 1 : 0);
      w.strings(pc.accepts);
      w.u32(static_cast<std::uint32_t>(pc.values.size()));
      for (const auto& [field, values] : pc.values) {
        w.str(field);
        w.strings(values);
      }
    }
  }
  w.str(encode_history(histories()));
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
      std::string key = r.str();
      c.fields.emplace_hint(c.fields.end(), std::move(key), read_field(r));
    }
    for (std::uint32_t m = r.count(); m > 0; --m) {
      PositionalParams pp;
      pp.from = r.str();
      pp.params = r.strings();
      pp.source = r.str();
      c.init_positional.push_back(std::move(pp));
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
      p.values.emplace_hint(p.values.end(), std::move(key), get_scalar(r));
    }
    std::string name = p.name;
    k.profiles_.emplace_hint(k.profiles_.end(), std::move(name), std::move(p));
  }
  for (std::uint32_t n = r.count(); n > 0; --n) {
    Rename rn;
    rn.cls = r.str();
    rn.old_name = r.str();
    rn.new_name = r.str();
    rn.field = r.str();
    const std::uint8_t flags = r.u8();
    rn.is_value = flags & 1;
    rn.unsafe_fix = flags & 2;
    rn.no_fix = flags & 4;
    rn.deprecated_or_earlier = flags & 8;
    rn.old_value = get_scalar(r);
    rn.new_value = get_scalar(r);
    rn.deprecated = r.str();
    rn.removed = r.str();
    rn.note = r.str();
    rn.source = r.str();
    rn.deprecated_source = r.str();
    rn.removed_source = r.str();
    k.renames_.push_back(std::move(rn));
  }
  for (std::uint32_t n = r.count(); n > 0; --n) {
    std::string section = r.str();
    auto& keys = k.accelerate_sections_[section];
    for (std::uint32_t m = r.count(); m > 0; --m) {
      std::string key = r.str();
      keys.emplace_hint(keys.end(), std::move(key), read_field(r));
    }
  }
  for (std::uint32_t n = r.count(); n > 0; --n) {
    std::string key = r.str();
    LibraryReleases lib;
    lib.name = r.str();
    lib.releases = r.strings();
    lib.newest = r.str();
    lib.fields_complete_from = r.str();
    lib.source = r.str();
    k.libraries_.emplace_hint(k.libraries_.end(), std::move(key), std::move(lib));
  }
  for (std::uint32_t n = r.count(); n > 0; --n) {
    Patcher p;
    p.name = r.str();
    p.modules = r.strings();
    p.source = r.str();
    for (std::uint32_t m = r.count(); m > 0; --m) {
      std::string cname = r.str();
      PatchedClass pc;
      pc.rebinds = r.u8() != 0;
      pc.accepts = r.strings();
      for (std::uint32_t v = r.count(); v > 0; --v) {
        std::string field = r.str();
        pc.values.emplace_hint(pc.values.end(), std::move(field), r.strings());
      }
      p.classes.emplace_hint(p.classes.end(), std::move(cname), std::move(pc));
    }
    std::string name = p.name;
    k.patchers_.emplace_hint(k.patchers_.end(), std::move(name), std::move(p));
  }
  k.history_->blob = r.str();  // decoded on first use
  if (!r.at_end()) Reader::fail();
  k.index_fields();
  return k;
} catch (const bin::BinaryFormatError&) {
  throw std::runtime_error("embedded knowledge data is truncated or malformed");
}

}  // namespace trl
