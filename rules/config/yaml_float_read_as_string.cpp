// TRL002 yaml-float-read-as-string: `1e-5` in a YAML that PyYAML loads without argparse
// conversion, for a float or int field.

#include "rules/rule.hpp"
#include "rules/support/rule_support.hpp"
#include "rules/support/yaml_scopes.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL002", "yaml-float-read-as-string", Severity::Warning,
                     "PyYAML reads a number like `1e-5` as a string.",
                     R"(## What it does
Finds numbers written in exponent form without a dot or without a signed exponent (`1e-5`,
`5e-5`, `3e4`, `1.0e5`) in a YAML value for a float or int field, where nothing converts the
string back:
- a YAML loaded in Python and passed on as is: `SFTConfig(**yaml.safe_load(open("cfg.yaml")))`;
- an accelerate config YAML for an int field (`fsdp_min_num_params: 1e8`): the launcher exports it
  and the plugin calls `int("1e8")`.

A trainer YAML read by `TrlParser` (`--config`) is fine: its values become argparse defaults,
and argparse applies the field's `type=float` to string defaults. Float fields of accelerate
configs are fine too: the launcher passes them through the environment and accelerate calls
`float()` on them.

## Why is this bad?
PyYAML follows YAML 1.1: a float needs a dot, and an exponent needs a sign. `1e-5` resolves to
the string `'1e-5'`. `TrainingArguments` keeps it as a string and the run fails when the
optimizer compares it with a number, after the model has loaded.

## Example
```yaml
# config.yaml
output_dir: out
learning_rate: 1e-5
```
```python
# train.py
import yaml
from trl import SFTConfig, SFTTrainer

with open("config.yaml") as f:
    config = yaml.safe_load(f)
args = SFTConfig(**config)
SFTTrainer(model="Qwen/Qwen2.5-0.5B", args=args).train()
```
```bash
# launch.sh
python train.py
```

## Use instead
```yaml
# config.yaml
output_dir: out
learning_rate: 1.0e-5
```

## Fix
Safe: rewrites the number so that PyYAML reads it as intended (`1.0e-5`; for an integer field the
digits, `1e8` -> `100000000`). None for a value that carries an anchor (`&n 1e8`), which aliases
elsewhere reuse.

## References
- PyYAML `lib/yaml/resolver.py` (6.0.3), the implicit float resolver
- transformers `src/transformers/hf_argparser.py` (`parse_dict` / `parse_yaml_file`: no type conversion)
- accelerate `src/accelerate/utils/launch.py` and `utils/dataclasses.py` (v1.14.0:
  `FSDP_MIN_NUM_PARAMS` read back with `int()`)
)"};

// The same number spelled the way PyYAML reads as a float: a dot in the mantissa, a signed exponent.
std::string canonical(const std::string& raw) {
  auto e = raw.find_first_of("eE");
  std::string mantissa = raw.substr(0, e), exponent = raw.substr(e + 1);
  // `.5` and `-.5`: PyYAML's float pattern takes a leading dot only without a sign; a 0 serves both.
  const std::size_t sign = !mantissa.empty() && (mantissa[0] == '-' || mantissa[0] == '+') ? 1 : 0;
  if (mantissa.size() > sign && mantissa[sign] == '.') mantissa.insert(sign, "0");
  if (mantissa.find('.') == std::string::npos) mantissa += ".0";
  if (mantissa.back() == '.') mantissa += "0";
  if (exponent[0] != '-' && exponent[0] != '+') exponent = "+" + exponent;
  return mantissa + "e" + exponent;
}

class YamlFloatReadAsString final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  // Several runs may read one YAML: one finding per place (merge key).
  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    rules::for_each_run_yaml_key(context, run, [&](const rules::YamlKeyUse& u) { judge(u, out); });
  }
  void check_file(const RuleContext& context, FileId file, const FileUses& uses,
                  std::vector<Diagnostic>& out) const override {
    rules::for_each_accelerate_yaml_key(context, file, uses, [&](const rules::YamlKeyUse& u) { judge(u, out); });
  }

 private:
  // One key's value.
  void judge(const rules::YamlKeyUse& u, std::vector<Diagnostic>& out) const {
    if (u.reader == rules::YamlReader::TrlParser) return;  // argparse converts string defaults
    const YamlNode& v = *u.entry->value;
    if (v.kind != YamlNode::Kind::Scalar || v.style != ScalarStyle::Plain || v.tagged ||
        v.scalar.kind != Scalar::Kind::Str || !v.exponent_number)
      return;
    const std::string& type = u.field->type;
    if (u.reader == rules::YamlReader::Accelerate ? type != "int" : (type != "float" && type != "int")) return;
    Diagnostic d = make_merged(v.span, "PyYAML reads `" + u.entry->key + ": " + v.raw + "` as the string '" + v.raw +
                                           "', not a number (" + type + " field)");
    d.label = "a string for PyYAML";
    d.notes.push_back("YAML 1.1 floats need a dot and a signed exponent (`1.0e-5`)");
    if (u.reader == rules::YamlReader::PythonLoad)
      d.notes.push_back(
          "this YAML is loaded with yaml.safe_load and passed to the config as is; nothing converts "
          "the string");
    else
      d.notes.push_back("accelerate exports the value and reads it back with int(), which rejects '" + v.raw + "'");
    if (u.run && u.run->launch) d.related.push_back({u.run->launch->span, "read by this launch", true});
    std::string fixed = canonical(v.raw);
    if (type == "int") {
      // An int field wants digits: 1e8 -> 100000000 when exact. Underscores separate digits
      // (PyYAML drops them from a float, as Python's float() does: `1_0e7` is 1e8).
      std::string digits = fixed;
      std::erase(digits, '_');
      try {
        std::size_t used = 0;
        const double x = std::stod(digits, &used);
        if (used == digits.size() && x < 1e18 && x > -1e18 && x == static_cast<double>(static_cast<long long>(x)))
          fixed = std::to_string(static_cast<long long>(x));
      } catch (const std::exception&) {
      }
    }
    d.help = "write `" + fixed + "`";
    // No fix on an anchored value (`&n 1e8`): the aliases that reuse it would change too.
    if (fixed != v.raw && !v.anchored) {
      Fix fix;
      fix.title = "Write `" + fixed + "`";
      fix.edits.push_back({v.span, fixed});
      d.fixes.push_back(std::move(fix));
    }
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_yaml_float_read_as_string() {
  return std::make_unique<YamlFloatReadAsString>();
}

}  // namespace trl
