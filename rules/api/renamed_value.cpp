// TRL503 renamed-value: a renamed value of an argument (packing_strategy ffd -> bfd,
// bfd-requeue -> bfd_split, truncation_mode keep_end -> keep_start).

#include "rules/rule.hpp"
#include "rules/support/rule_support.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL503",           "renamed-value",
                     Severity::Error,    "An argument value the target version renamed or deprecated.",
                     R"(## What it does
Finds a value of an argument that the library renamed: `packing_strategy: ffd` (renamed `bfd` in
TRL 0.20.0, no alias), `packing_strategy: bfd-requeue` (renamed `bfd_split` in TRL 1.0.0, still
rewritten with a warning), `truncation_mode: keep_end` (deprecated in TRL 1.1.0), wherever the
value is set: trainer YAML, launch line or Python. Judged against the target TRL version (pins,
`--target-version`, or the newest known release); an error once the old value is gone, a warning
while it is deprecated.

## Why is this bad?
A value that no longer exists fails late: `packing_strategy` is checked only when the dataset is
packed, after the model has loaded on the cluster. A deprecated value warns now and breaks on
the next major release.

## Example
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
packing: true
packing_strategy: ffd
```
```bash
# launch.sh
trl sft --config recipes/sft.yaml
```

## Use instead
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
packing: true
packing_strategy: bfd
```

## Fix
Safe for pure renames (`ffd` -> `bfd`, `bfd-requeue` -> `bfd_split`). For `keep_end` the
replacement keeps the other end of the sequence, so the fix is offered as unsafe. When the value
comes from a variable (`strategy = "ffd"` ... `packing_strategy=strategy`), the fix edits the
literal where it is assigned and is unsafe: the variable may be read elsewhere.

## References
- `trl/trainer/sft_config.py` (v0.19.1 default `"ffd"`; v0.20.0 choices `bfd`, `wrapped`)
- `trl/trainer/sft_config.py` (v1.9.0 `__post_init__`: `bfd-requeue` rewritten to `bfd_split` with a
  FutureWarning; `keep_end` deprecated, removal planned for v2.0.0)
)", "warning while the old value is only deprecated"};

class RenamedValue final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    const Knowledge& k = Knowledge::get();
    if (!run.config_class) return;
    const VersionTargets& targets = context.targets(run);
    for (const Rename* r : rules::renames_for(k, *run.config_class, true)) {
      if (r->old_value.kind != Scalar::Kind::Str) continue;
      auto it = run.args.find(r->field);
      if (it == run.args.end() || !it->second.known()) continue;
      const Setting& s = it->second;
      if (!(s.value == r->old_value)) continue;
      const VersionTarget& target = targets.of(k.library_of(r->cls));
      const auto state = rules::rename_state(*r, target);
      if (state == rules::RenameState::NotYet) continue;
      // The literal: where the value was written when it flowed here from elsewhere (a variable),
      // else in the setting itself. Only there may the fix edit (a search from the setting on
      // would find the word in other arguments of the line).
      const bool flowed =
          s.value_span.valid() &&
          (s.value_span.file != s.span.file || s.value_span.begin != s.span.begin || s.value_span.end != s.span.end);
      Span at = rules::find_word(context, flowed ? s.value_span : s.span, r->old_value.s, true);
      const bool literal = at.valid() && (!flowed || (at.begin >= s.value_span.begin && at.end <= s.value_span.end));
      if (!at.valid()) at = s.primary_span();
      const std::string L = rules::library_display(k.library_of(r->cls));
      const std::string nv = r->new_value.kind == Scalar::Kind::Str ? r->new_value.s : r->new_value.yaml();
      // Two runs may read one trainer YAML: one finding per place.
      Diagnostic d = make_merged(
          at,
          "`" + rules::assignment(run, s, r->field, r->old_value) + "` " +
              (state == rules::RenameState::Removed ? "no longer exists" : "is deprecated") + ": use `" + nv + "` (" +
              (r->removed.empty() ? "deprecated in " + L + " " + r->deprecated : "renamed in " + L + " " + r->removed) +
              "); judged against " + target.describe());
      d.severity = state == rules::RenameState::Removed ? Severity::Error : Severity::Warning;
      d.label = "set here (" + s.origin_text() + ")";
      if (target.pin.valid()) d.related.push_back({target.pin, "version pinned here"});
      if (!r->note.empty()) d.notes.push_back(r->note);
      d.notes.push_back("source: " + r->source);
      d.help = "set `" + rules::assignment(run, s, r->field, r->new_value) + "`";
      if (literal && rules::span_text(context, at) == r->old_value.s) {
        Fix fix;
        fix.title = "Replace `" + r->old_value.s + "` with `" + nv + "`";
        fix.edits.push_back({at, nv});
        // A literal assigned to a variable may be read elsewhere too.
        fix.safe = !r->unsafe_fix && !flowed;
        d.fixes.push_back(std::move(fix));
      }
      out.push_back(std::move(d));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> make_renamed_value() {
  return std::make_unique<RenamedValue>();
}

}  // namespace trl
