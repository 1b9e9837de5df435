#include "rules/api/rename_findings.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "rules/support/rule_support.hpp"

namespace trl::rules {

namespace {

struct Context {
  const Rule& rule;
  bool removed;
  const RuleContext& context;
  const Knowledge& k = Knowledge::get();
  std::map<const ClassInfo*, std::vector<const Rename*>> renames;  // renames_for, once per class

  const std::vector<const Rename*>& renames_of(const ClassInfo& cls) {
    auto it = renames.find(&cls);
    if (it == renames.end()) it = renames.emplace(&cls, renames_for(k, cls, false)).first;
    return it->second;
  }
};

bool is_field_of_any(const Knowledge& k, const std::vector<const ClassInfo*>& classes, std::string_view name) {
  for (const ClassInfo* c : classes)
    if (k.field(*c, name)) return true;
  return false;
}

// The diagnostic for one occurrence of `r.old_name` at `at`; `also_new` when the new name is set
// in the same place too (then no fix is offered). `shared`: the name is written outside the call
// that uses it (a dict passed with `**`), where other code may read it: the fix is unsafe.
// `still_field`: the old name is still a field of the class the knowledge describes (the newest
// release): only its deprecation is reported, never a removal the field list contradicts.
void report(Context& cx, const Rename& r, Span at, const VersionTargets& targets, bool also_new,
            const std::string& where, std::vector<Diagnostic>& out, bool shared = false, bool still_field = false) {
  if ((r.new_name.empty()) != cx.removed) return;
  const std::string lib = cx.k.library_of(r.cls);
  const VersionTarget& target = targets.of(lib);
  const RenameState state = rename_state(r, target);
  if (state == RenameState::NotYet) return;
  if (still_field && state != RenameState::Deprecated) return;
  Span word = find_word(cx.context, at, r.old_name);
  if (!word.valid()) word = at;
  const std::string L = library_display(lib);
  std::string msg = "`" + r.old_name + "` ";
  if (!r.new_name.empty())
    msg += state == RenameState::Removed ? "was renamed to `" + r.new_name + "`"
                                         : "is deprecated: renamed to `" + r.new_name + "`";
  else
    msg += state == RenameState::Removed ? "was removed" : "is deprecated and will be removed";
  if (!r.deprecated.empty())
    msg += " (deprecated in " + L + " " + r.deprecated + (r.deprecated_or_earlier ? " or earlier" : "");
  if (!r.removed.empty()) msg += (r.deprecated.empty() ? " (" : ", ") + std::string("removed in ") + r.removed;
  if (!r.deprecated.empty() || !r.removed.empty()) msg += ")";
  msg += "; judged against " + target.describe();
  Diagnostic d;
  d.code = cx.rule.info().code;
  d.name = cx.rule.info().name;
  // Two runs may read one trainer YAML, and one dict may reach two calls: one finding per word.
  d.merge_key = r.old_name;
  d.severity = state == RenameState::Removed ? Severity::Error : Severity::Warning;
  d.span = word;
  d.message = msg;
  d.label = where;
  if (target.pin.valid()) d.related.push_back({target.pin, "version pinned here"});
  if (!r.note.empty()) d.notes.push_back(r.note);
  if (state == RenameState::Removed && where == "trainer YAML key")
    d.notes.push_back(
        "TrlParser rejects config keys no dataclass takes (\"Unknown arguments from config file\"); TRL's own "
        "scripts pass fail_with_unknown_args=False and ignore the key silently");
  std::string cited = "source: " + r.source;
  if (!r.deprecated_source.empty()) cited += "; deprecated in " + r.deprecated + ": " + r.deprecated_source;
  if (!r.removed_source.empty()) cited += "; removed in " + r.removed + ": " + r.removed_source;
  d.notes.push_back(std::move(cited));
  if (!r.new_name.empty()) {
    d.help = "use `" + r.new_name + "`";
    // no_fix: the knowledge entry's note says why the name alone cannot change.
    if (!r.no_fix && !also_new && word.valid() && span_text(cx.context, word) == r.old_name) {
      Fix fix;
      fix.title = "Rename `" + r.old_name + "` to `" + r.new_name + "`";
      fix.edits.push_back({word, r.new_name});
      fix.safe = !r.unsafe_fix && !shared;
      d.fixes.push_back(std::move(fix));
      if (shared)
        d.notes.push_back("`" + r.old_name +
                          "` is written outside this call (in a dict passed with `**`): renaming it there changes it "
                          "for every other use of that dict too");
    } else if (also_new) {
      d.notes.push_back("`" + r.new_name + "` is set here too: remove `" + r.old_name + "`");
    }
  } else {
    d.help = "remove `" + r.old_name + "`";
  }
  out.push_back(std::move(d));
}

}  // namespace

void find_renamed_in_run(const Rule& rule, bool removed, const RuleContext& context, const TrainingRun& run,
                         std::vector<Diagnostic>& out) {
  if (!run.args_from_parser || run.parser_classes.empty()) return;
  Context cx{rule, removed, context};
  const VersionTargets& targets = cx.context.targets(run);
  std::vector<const Rename*> renames;
  for (const ClassInfo* c : run.parser_classes)
    for (const Rename* r : cx.renames_of(*c)) renames.push_back(r);
  for (const auto& [key, setting] : run.args) {
    if (setting.origin != Origin::TrainerYaml && setting.origin != Origin::CommandLine) continue;
    // A name that is still a field may be a deprecated one (transformers 5.x `warmup_ratio`).
    const bool still_field = is_field_of_any(cx.k, run.parser_classes, key);
    bool patched = false;
    for (const ClassInfo* c : run.parser_classes) patched = patched || cx.k.patched_accepts(run.patched_by, *c, key);
    if (patched) continue;
    // A field of the script's own dataclass (TrlParser fills it like the others), or of a class
    // we could not resolve: the key is that class's, not an old name of the library's.
    if (!still_field && (!run.parser_classes_complete ||
                         std::find(run.user_fields.begin(), run.user_fields.end(), key) != run.user_fields.end()))
      continue;
    for (const Rename* r : renames) {
      if (r->old_name != key) continue;
      const bool also_new =
          !r->new_name.empty() && run.args.count(r->new_name) && run.args.at(r->new_name).origin == setting.origin;
      report(cx, *r, setting.span, targets, also_new,
             setting.origin == Origin::TrainerYaml ? "trainer YAML key" : "command-line flag", out, false, still_field);
      break;
    }
  }
}

void find_renamed_in_script(const Rule& rule, bool removed, const RuleContext& context, FileId file,
                            const ScriptSummary& summary, std::vector<Diagnostic>& out) {
  Context cx{rule, removed, context};
  const VersionTargets& targets = context.targets(file);
  for (const Construction& c : summary.constructions) {
    if (!c.cls) continue;
    const auto& renames = cx.renames_of(*c.cls);
    for (const Member& kw : c.keywords) {
      if (cx.k.patched_accepts(c.patched_by, *c.cls, kw.name)) continue;
      const bool still_field = cx.k.field(*c.cls, kw.name) != nullptr;
      for (const Rename* r : renames) {
        if (r->old_name != kw.name) continue;
        bool also_new = false;
        for (const Member& o : c.keywords) also_new = also_new || o.name == r->new_name;
        const bool in_call =
            kw.set_at.file == c.span.file && kw.set_at.begin >= c.span.begin && kw.set_at.end <= c.span.end;
        report(cx, *r, kw.set_at, targets, also_new, "keyword argument of " + c.cls->name, out, !in_call, still_field);
        break;
      }
    }
  }
}

}  // namespace trl::rules
