#include "rules/support/rule_support.hpp"

#include <algorithm>
#include <cctype>

namespace trl::rules {

Span sub_span(const RuleContext& context, Span span, std::uint32_t offset, std::uint32_t length) {
  const SourceFile* file = span.valid() ? context.file(span.file) : nullptr;
  if (!file) return {};
  const SourceFile& f = *file;
  const std::uint32_t begin = span.begin + offset;
  if (begin + length > f.text.size()) return {};
  Span s;
  s.file = span.file;
  s.begin = begin;
  s.end = begin + length;
  s.start = f.point_at(s.begin);
  s.stop = f.point_at(s.end);
  return s;
}

std::string_view span_text(const RuleContext& context, Span span) {
  const SourceFile* file = span.valid() ? context.file(span.file) : nullptr;
  if (!file) return {};
  const SourceFile& f = *file;
  // A notebook's spans are offsets of its decoded code (analyzer/notebook), not of the .ipynb text.
  if (f.kind == FileKind::Notebook) return {};
  if (span.end > f.text.size() || span.begin > span.end) return {};
  return std::string_view(f.text).substr(span.begin, span.end - span.begin);
}

Span find_word(const RuleContext& context, Span span, std::string_view word, bool to_line_end) {
  const SourceFile* file = span.valid() && !word.empty() ? context.file(span.file) : nullptr;
  if (!file) return {};
  const SourceFile& f = *file;
  // A notebook's spans are offsets of its decoded code, not of the .ipynb text: the caller keeps
  // the whole span (the report maps it onto the .ipynb, see notebook_positions).
  if (f.kind == FileKind::Notebook) return {};
  std::uint32_t end = span.end;
  if (to_line_end) {
    auto nl = f.text.find('\n', span.end);
    end = nl == std::string::npos ? static_cast<std::uint32_t>(f.text.size()) : static_cast<std::uint32_t>(nl);
  }
  if (end > f.text.size() || span.begin > end) return {};
  std::string_view text = std::string_view(f.text).substr(span.begin, end - span.begin);
  auto is_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; };
  for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const bool left = at == 0 || !is_name(text[at - 1]) || (at >= 2 && text.substr(at - 2, 2) == "--");
    const std::size_t after = at + word.size();
    const bool right = after >= text.size() || !is_name(text[after]);
    if (left && right)
      return sub_span(context, span, static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(word.size()));
  }
  return {};
}

namespace {
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

namespace {

enum class Syntax { Python, CommandLine, Yaml };

std::optional<Syntax> syntax_of(const Setting& s) {
  if (s.origin == Origin::Python) return Syntax::Python;
  if (s.origin == Origin::CommandLine) return Syntax::CommandLine;
  if (s.origin == Origin::TrainerYaml || s.origin == Origin::AccelerateYaml) return Syntax::Yaml;
  return std::nullopt;
}

std::string python_literal(const Scalar& v) {
  switch (v.kind) {
    case Scalar::Kind::Null: return "None";
    case Scalar::Kind::Bool: return v.truthy() ? "True" : "False";
    case Scalar::Kind::Str:
    case Scalar::Kind::Timestamp: return "\"" + v.s + "\"";
    default: return v.yaml();
  }
}

}  // namespace

std::string assignment(const TrainingRun& run, const Setting& near, std::string_view field, const Scalar& value) {
  std::optional<Syntax> syntax = syntax_of(near);
  if (!syntax && run.trainer_yaml != kNoFile) syntax = Syntax::Yaml;
  if (!syntax)
    for (const auto& [name, s] : run.args)
      if (s.origin == Origin::Python) {
        syntax = Syntax::Python;
        break;
      }
  const std::string f(field);
  switch (syntax.value_or(Syntax::Yaml)) {
    case Syntax::Python: return f + "=" + python_literal(value);
    case Syntax::CommandLine: {
      const std::string text = value.kind == Scalar::Kind::Str ? value.s : value.yaml();
      return "--" + f + " " + text;
    }
    case Syntax::Yaml: break;
  }
  return f + ": " + value.yaml();
}

std::string nearest(std::string_view name, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::max<std::size_t>(1, name.size() / 3) + 1;
  for (const auto& c : candidates) {
    std::size_t d = distance(name, c);
    if (d < best_d || (d == best_d && !best.empty() && c < best)) {
      if (d < best_d) best_d = d;
      best = c;
    }
  }
  return best;
}

std::optional<VersionTarget> trl_target_at_least(const RuleContext& context, const TrainingRun& run,
                                                 std::string_view version) {
  VersionTarget trl = context.targets(run).trl;
  if (!trl.known() || compare_versions(*trl.version, std::string(version)) < 0) return std::nullopt;
  return trl;
}

VersionTarget trl_target(const RuleContext& context, const TrainingRun& run) {
  return context.targets(run).trl;
}

bool attention_may_separate_packed(const RuleContext& context, const TrainingRun& run) {
  const VersionTargets& t = context.targets(run);
  if (!t.transformers.known()) return true;
  if (compare_versions(*t.transformers.version, "4.54.0") < 0) return false;
  if (t.trl.known() && compare_versions(*t.trl.version, "0.22.0") < 0) {
    // gradient_checkpointing defaults to False before TRL 0.22.0 (its default became True there,
    // PR #3510; the knowledge holds v1.9.0's): the model's own cache is then on.
    const Setting gc = run.arg("gradient_checkpointing");
    if (gc.origin == Origin::Default || gc.truth() == Truth::False) return false;
  }
  return true;
}

std::optional<VersionTarget> accelerate_target_before(const RuleContext& context, const TrainingRun& run,
                                                      std::string_view version) {
  VersionTarget acc = context.targets(run).accelerate;
  if (!acc.known() || compare_versions(*acc.version, std::string(version)) >= 0) return std::nullopt;
  return acc;
}

PackingStrategy packing_strategy(const RuleContext& context, const TrainingRun& run) {
  PackingStrategy out;
  out.setting = run.arg("packing_strategy");
  const VersionTarget trl = trl_target(context, run);
  const bool is_str = out.setting.known() && out.setting.value.kind == Scalar::Kind::Str;
  const bool by_default = out.setting.origin == Origin::Default;
  if (!trl.known()) {
    // Only a value written by the user says what the (unknown) release does with it.
    if (is_str && !by_default) out.name = out.setting.value.s;
    return out;
  }
  out.target = trl;
  if (compare_versions(*trl.version, "0.16.0") < 0) return out;
  if (compare_versions(*trl.version, "0.19.0") < 0) {
    out.name = "concatenated";
    return out;
  }
  if (!is_str) return out;
  const bool v019 = compare_versions(*trl.version, "0.20.0") < 0;
  if (by_default && v019) {
    out.name = "ffd";  // the 0.19.x default
    return out;
  }
  const std::string& v = out.setting.value.s;
  // A value the target does not take (bfd in 0.19.x, ffd from 0.20.0) is TRL005's and TRL503's.
  if (v019 ? (v == "ffd" || v == "wrapped") : v != "ffd") out.name = v;
  return out;
}

namespace {

// Whether an argument's value is None: on every path, on none, or not known.
Passed value_passed(const ValueRef& v) {
  if (!v) return Passed::Unknown;
  switch (v->kind) {
    case PyValue::Kind::Const: return v->constant.kind == Scalar::Kind::Null ? Passed::None : Passed::Value;
    case PyValue::Kind::OneOf: {
      std::size_t nones = 0;
      for (const ValueRef& a : v->items)
        if (a && a->is_const() && a->constant.kind == Scalar::Kind::Null) ++nones;
      if (nones == 0) return Passed::Value;
      return nones == v->items.size() ? Passed::None : Passed::Unknown;
    }
    // A value we do not model: not None when the evaluator knows it cannot be (a dataset the
    // datasets library loads, a split or a transform of one), on every path.
    case PyValue::Kind::Unknown: return v->not_none ? Passed::Value : Passed::Unknown;
    default: return Passed::Value;
  }
}

}  // namespace

Passed keyword_passed(const Construction& call, std::string_view name) {
  const Member* found = nullptr;
  for (const Member& kw : call.keywords)
    if (kw.name == name) found = &kw;
  if (!found) return call.unknown_spread ? Passed::Unknown : Passed::Absent;
  return value_passed(found->value);
}

Passed positional_passed(const Construction& call, std::string_view name, const VersionTarget& target) {
  if (call.positional.empty()) return Passed::Absent;
  if (!call.cls || call.cls->init_positional.empty()) return Passed::Unknown;
  const std::vector<PositionalParams>& orders = call.cls->init_positional;
  // The orders that may hold: the one in force at the target, or all of them.
  std::vector<const PositionalParams*> candidates;
  if (target.known()) {
    for (const PositionalParams& o : orders)
      if (compare_versions(o.from, *target.version) <= 0) candidates.assign(1, &o);
  } else {
    for (const PositionalParams& o : orders) candidates.push_back(&o);
  }
  if (candidates.empty()) return Passed::Unknown;  // a target older than the first recorded order
  bool none = false;
  for (const PositionalParams* o : candidates) {
    if (o->params.empty()) return Passed::Unknown;  // `*args` forwarded: any position may be it
    const auto at = std::find(o->params.begin(), o->params.end(), name);
    if (at == o->params.end()) continue;
    const auto index = static_cast<std::size_t>(at - o->params.begin());
    if (index >= call.positional.size()) continue;
    if (value_passed(call.positional[index]) == Passed::None) {
      none = true;
      continue;
    }
    return Passed::Unknown;
  }
  return none ? Passed::None : Passed::Absent;
}

std::string library_display(std::string_view library) {
  if (library == "trl") return "TRL";
  return std::string(library);
}

RenameState rename_state(const Rename& r, const VersionTarget& target) {
  if (!target.version) return RenameState::NotYet;
  if (!r.removed.empty() && compare_versions(*target.version, r.removed) >= 0) return RenameState::Removed;
  if (!r.deprecated.empty() && compare_versions(*target.version, r.deprecated) >= 0) return RenameState::Deprecated;
  return RenameState::NotYet;
}

std::vector<const Rename*> renames_for(const Knowledge& k, const ClassInfo& cls, bool values) {
  std::vector<const Rename*> out;
  for (const auto& r : k.renames())
    if (r.is_value == values && k.derives_from(cls, r.cls)) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(),
                   [&](const Rename* a, const Rename* b) { return (a->cls == cls.name) > (b->cls == cls.name); });
  return out;
}

std::vector<const Rename*> renames_named(const Knowledge& k, std::string_view cls, bool values) {
  if (const ClassInfo* c = k.find(cls)) return renames_for(k, *c, values);
  std::vector<const Rename*> out;
  for (const auto& r : k.renames())
    if (r.is_value == values && r.cls == cls) out.push_back(&r);
  return out;
}

bool fields_known_at(const Knowledge& k, const VersionTargets& t, std::string_view library) {
  const LibraryReleases* r = k.library(library);
  const VersionTarget& v = t.of(library);
  if (!r || !v.version) return false;
  // A release newer than the knowledge: known only from its installed source.
  if (newer_than_knowledge(k, v)) return !v.installed_site.empty();
  if (r->fields_complete_from.empty() || compare_versions(*v.version, r->fields_complete_from) >= 0) return true;
  return k.history_covers(library, *v.version);
}

bool history_judges(const Knowledge& k, const VersionTargets& t, std::string_view library) {
  const VersionTarget& v = t.of(library);
  return v.version && k.judged_by_history(library, *v.version);
}

bool judged_by_history(const Knowledge& k, const ClassInfo& cls, const VersionTargets& t) {
  return !cls.package.empty() && history_judges(k, t, cls.package);
}

std::string judged_against(const Knowledge& k, const VersionTargets& t) {
  std::string out = t.trl.describe();
  if (history_judges(k, t, "transformers")) out += " and " + t.transformers.describe();
  return out;
}

const ClassInfo* class_at_target(const RuleContext& context, const Knowledge& k, const ClassInfo& cls,
                                 const VersionTargets& t) {
  const ClassInfo* at = &cls;
  if (judged_by_history(k, cls, t) && k.history(cls.name)) at = k.at(cls, *t.of(cls.package).version);
  if (!at) return nullptr;
  // A library installed newer than the knowledge: the class (or its bases) from the source.
  if (const ClassInfo* installed = context.installed_class(*at, t)) at = installed;
  // Bases of another library judged by its own history (TrainingArguments at an older
  // transformers under a TRL config), as that library's target release has them.
  for (const char* library : {"trl", "transformers", "accelerate"}) {
    if (library == cls.package || !history_judges(k, t, library)) continue;
    at = k.with_bases_at(*at, library, *t.of(library).version);
  }
  return at;
}

std::string installed_source_note(const Knowledge& k, const std::vector<const ClassInfo*>& classes) {
  // Per library: its installed version and the modules read.
  std::vector<std::pair<const ClassInfo::InstalledModule*, std::vector<std::string>>> libs;
  for (const ClassInfo* c : classes) {
    if (!c) continue;
    for (const auto& m : c->installed_from) {
      auto it = std::find_if(libs.begin(), libs.end(), [&](const auto& l) { return l.first->library == m.library; });
      if (it == libs.end()) it = libs.insert(libs.end(), {&m, {}});
      if (std::find(it->second.begin(), it->second.end(), m.file) == it->second.end()) it->second.push_back(m.file);
    }
  }
  std::string out;
  for (const auto& [m, files] : libs) {
    const LibraryReleases* r = k.library(m->library);
    out += std::string(out.empty() ? "" : "; ") + (m->library == "trl" ? "TRL" : m->library) + " " + m->version +
           " is newer than the releases trl-lint knows (to " + (r ? r->newest : "?") +
           "): its fields were read from the installed source (";
    for (std::size_t i = 0; i < files.size(); ++i) out += (i ? ", " : "") + files[i];
    out += ")";
  }
  return out;
}

}  // namespace trl::rules
