// The settings of a training run, with where each was written: the trainer config's fields from
// the --config YAML (as TrlParser reads it) and the script's command-line flags (as
// HfArgumentParser reads them), the attention implementation the trained model loads with, and
// the config class as the targeted TRL release has it.
#include <cctype>
#include <optional>
#include <string>

#include "analyzer/eval/run_builder.hpp"
#include "analyzer/eval/run_builder_internal.hpp"
#include "analyzer/eval/version_targets.hpp"
#include "analyzer/knowledge/knowledge.hpp"

namespace trl {

namespace run_builder_detail {

namespace {

// transformers hf_argparser.string_to_bool: yes/true/t/y/1 and no/false/f/n/0, any case.
std::optional<bool> string_to_bool(std::string v) {
  for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "yes" || v == "true" || v == "t" || v == "y" || v == "1") return true;
  if (v == "no" || v == "false" || v == "f" || v == "n" || v == "0") return false;
  return std::nullopt;
}

// What argparse's `type=` makes of a string, for a field of known type.
Setting convert_string(const std::string& text, const FieldInfo* field, Span span, Origin origin) {
  const std::string type = field ? field->type : "";
  if (type == "bool") {
    if (auto b = string_to_bool(text)) return Setting::known_value(Scalar::boolean(*b), span, origin);
    return Setting::unknown(span, origin);  // argparse would reject it; another rule's business
  }
  try {
    std::size_t used = 0;
    if (type == "int") {
      long long v = std::stoll(text, &used);
      if (used == text.size()) return Setting::known_value(Scalar::integer(v), span, origin);
      return Setting::unknown(span, origin);
    }
    if (type == "float") {
      double v = std::stod(text, &used);
      if (used == text.size()) return Setting::known_value(Scalar::floating(v), span, origin);
      return Setting::unknown(span, origin);
    }
  } catch (const std::exception&) {
    return Setting::unknown(span, origin);
  }
  if (field && field->nullable && text == "None") return Setting::known_value(Scalar::null(), span, origin);
  if (type.empty()) {
    // Type not recorded: read booleans and numbers the way a reader of the flag would.
    if (auto b = string_to_bool(text); b && (text.size() > 1 || text == "0" || text == "1"))
      return Setting::known_value(Scalar::boolean(*b), span, origin);
  }
  return Setting::known_value(Scalar::string(text), span, origin);
}

const FieldInfo* find_field(const std::vector<const ClassInfo*>& classes, const Knowledge& k, std::string_view name) {
  for (const ClassInfo* c : classes)
    if (const FieldInfo* f = k.field(*c, name)) return f;
  return nullptr;
}

}  // namespace

Setting from_yaml_node(const YamlNode& node, Span key_span, const FieldInfo* field, bool argparse_defaults,
                       Origin origin) {
  if (node.kind != YamlNode::Kind::Scalar) return Setting::unknown(key_span, origin);
  // TrlParser makes YAML values argparse defaults, and argparse applies `type=` to string
  // defaults (trl/scripts/utils.py set_defaults_with_config, v1.9.0).
  if (argparse_defaults && node.scalar.kind == Scalar::Kind::Str && field && !field->type.empty() &&
      field->type != "str")
    return convert_string(node.scalar.s, field, key_span, origin);
  return Setting::known_value(node.scalar, key_span, origin);
}

Setting from_value(const ValueRef& v, Span at, Origin origin) {
  Setting s;
  if (v && v->kind == PyValue::Kind::Const) {
    s = Setting::known_value(v->constant, at, origin);
  } else if (v && v->kind == PyValue::Kind::OneOf) {
    s.state = Setting::State::OneOf;
    s.span = at;
    s.origin = origin;
    for (const auto& alt : v->items) s.alternatives.push_back(alt->constant);
    s.value = s.alternatives.front();
  } else {
    return Setting::unknown(at, origin);
  }
  s.value_span = v->span;
  for (const auto& step : v->chain) s.chain.push_back({step.span, step.note});
  return s;
}

Setting from_word(const Word& w, Span span, Origin origin, const FieldInfo* field) {
  if (!w.known) return Setting::unknown(span, origin);
  return convert_string(w.text, field, span, origin);
}

Setting int_setting(const Word& w, Span span, Origin origin) {
  FieldInfo int_field;
  int_field.type = "int";
  return from_word(w, span, origin, &int_field);
}

// None (or nothing) asks transformers for its default, sdpa
// (modeling_utils.py PreTrainedModel._check_and_adjust_attn_implementation).
Setting Builder::attn_default(Setting s, Span load_site) {
  if (s.state == Setting::State::Unset || (s.known() && s.value.kind == Scalar::Kind::Null)) {
    Span at = s.span.valid() ? s.span : load_site;
    return Setting::known_value(Scalar::string("sdpa"), at, Origin::TransformersDefault);
  }
  return s;
}

Setting Builder::attn_from_value(const TrainingRun& run, const ValueRef& v, Span load_site) const {
  if (!v) return attn_default(Setting{}, load_site);
  if (v->kind == PyValue::Kind::Const)
    return attn_default(Setting::known_value(v->constant, v->span, Origin::Python), load_site);
  if (!v->parser_field.empty() && run.args_from_parser) return attn_default(run.arg(v->parser_field), load_site);
  return Setting::unknown(v->span, Origin::Python);
}

// The attention implementation of the trained model: a from_pretrained(...) in the script, or
// the config's model_init_kwargs when the trainer loads the model from its name.
Setting Builder::resolve_attn(const TrainingRun& run, const ScriptSummary& summary, const ValueRef& config) const {
  if (!summary.model_loads.empty()) {
    Setting agreed;
    for (const ModelLoad& load : summary.model_loads) {
      Setting s = load.attn_implementation || load.complete ? attn_from_value(run, load.attn_implementation, load.span)
                                                            : Setting::unknown(load.span, Origin::Python);
      if (!s.known()) return s;
      if (agreed.known() && !(agreed.value == s.value)) return Setting::unknown(load.span, Origin::Python);
      if (!agreed.known()) agreed = s;
    }
    return agreed;
  }
  const TrainerUse* use = nullptr;
  for (const auto& t : summary.trainers)
    if (t.args && t.args->object_id == config->object_id) use = &t;
  if (!use || !use->model) return Setting::unknown({}, Origin::ModelNotVisible);
  const ValueRef& model = use->model;
  const bool by_name = (model->kind == PyValue::Kind::Const && model->constant.kind == Scalar::Kind::Str) ||
                       model->parser_field == "model_name_or_path";
  if (!by_name) return Setting::unknown(model->span, Origin::Python);
  if (const Member* m = config->member("model_init_kwargs")) {
    const ValueRef& kw = m->value;
    if (kw && kw->kind == PyValue::Kind::Dict) {
      if (const Member* a = kw->member("attn_implementation")) return attn_from_value(run, a->value, use->span);
      if (kw->complete) return attn_default(Setting{}, use->span);
    }
    if (kw && kw->kind == PyValue::Kind::Const && kw->constant.kind == Scalar::Kind::Null)
      return attn_default(Setting{}, use->span);
    return Setting::unknown(m->set_at, Origin::Python);
  }
  if (yaml_model_init_attn_.state != Setting::State::Unset || run.args.count("model_init_kwargs"))
    return run.args.count("model_init_kwargs") && yaml_model_init_attn_.state == Setting::State::Unset
               ? attn_default(Setting{}, use->span)
               : attn_default(yaml_model_init_attn_, use->span);
  if (!run.args_fully_known) return Setting::unknown({}, Origin::NotVisible);
  return attn_default(Setting{}, use->span);
}

// --config YAML, then the script's command-line flags (CLI > YAML > dataclass defaults).
// `reads_config`: the parser reads `--config` (TrlParser.parse_args_and_config). Without it, a
// `--config` on the launch line is an argument argparse rejects: no YAML is applied, and the
// run's values are not known.
void Builder::apply_parser_inputs(TrainingRun& run, const std::vector<const ClassInfo*>& classes, EnvMap& yaml_env,
                                  bool reads_config) {
  const LaunchCommand l = *run.launch;
  yaml_model_init_attn_ = Setting{};
  // TrlParser.parse_args_and_config (trl/scripts/utils.py, v0.13.0..v1.9.0) looks for the word
  // `--config` with args.index: the first one, and only that spelling. A second `--config X` or
  // a `--config=X` goes on to HfArgumentParser as an argument no dataclass takes (an error, or
  // an abbreviation of some other option): that YAML is not the run's config, and what the run
  // then does is not known.
  std::optional<Word> config;
  for (std::size_t i = 0; i < l.args.size(); ++i) {
    const Word& w = l.args[i];
    if (!w.known) continue;
    if (w.text == "--config" && i + 1 < l.args.size()) {
      if (!config) {
        config = l.args[i + 1];
      } else {
        run.args_fully_known = false;
        run.explanations.push_back(
            {w.span,
             "a second `--config` goes to the argument parser as an argument (TrlParser reads only the "
             "first): what it sets is not known"});
      }
      ++i;
    } else if (w.text.rfind("--config=", 0) == 0) {
      run.args_fully_known = false;
      if (!config) run.trainer_yaml_unknown = true;
      run.explanations.push_back(
          {w.span,
           "`--config=PATH` is not read by TrlParser (it looks for the word `--config`): the argument "
           "parser gets it, and what it sets is not known"});
    }
  }
  if (config && !reads_config) {
    run.args_fully_known = false;
    run.explanations.push_back({config->span,
                                "`--config` is not read: the script's parser does not read a config "
                                "file (TrlParser.parse_args_and_config does)"});
  } else if (config) {
    if (!config->known) {
      run.args_fully_known = false;
      run.trainer_yaml_unknown = true;
      run.explanations.push_back({config->span,
                                  "the trainer config path is not known: it is built from a "
                                  "variable, a loop or command output"});
    } else {
      run.trainer_yaml = resolve_path(config->text, l, run.launch_file);
      FileReference ref =
          make_reference(FileReference::Kind::TrainerConfig, *config, l, run.launch_file, run.trainer_yaml);
      take_stand_in(ref, l, run.launch_file, false, run.trainer_yaml, run.trainer_yaml_doc);
      run.references.push_back(ref);
      if (const YamlNode* root = yaml_root(p_, run.trainer_yaml, run.trainer_yaml_doc)) {
        for (const auto& e : root->entries) {
          if (l.launcher == Launcher::Trl && !find_field(classes, k_, e.key) &&
              (e.key == "accelerate_config" || k_.launch_flag(e.key))) {
            // The trl CLI hands YAML keys that are no script field to `accelerate launch`
            // (trl/cli/commands/training.py, config_remaining); the command line comes after them.
            LaunchOption opt;
            opt.name = e.key;
            opt.span = e.key_span;
            if (e.value->kind == YamlNode::Kind::Scalar) opt.value = Word{e.value->scalar.yaml(), true, e.key_span};
            run.launch->options.insert(run.launch->options.begin(), std::move(opt));
            continue;
          }
          if (e.key == "model_init_kwargs" && e.value->kind == YamlNode::Kind::Mapping)
            if (const YamlEntry* a = e.value->find("attn_implementation"))
              yaml_model_init_attn_ = from_yaml_node(*a->value, a->key_span, nullptr, false, Origin::TrainerYaml);
          if (e.key == "env") {
            if (e.value->kind == YamlNode::Kind::Mapping)
              for (const auto& v : e.value->entries)
                yaml_env[v.key] = v.value->kind == YamlNode::Kind::Scalar
                                      ? Setting::known_value(Scalar::string(v.value->scalar.yaml()), v.key_span,
                                                             Origin::TrainerYamlEnv)
                                      : Setting::unknown(v.key_span, Origin::TrainerYamlEnv);
            continue;
          }
          run.args[e.key] =
              from_yaml_node(*e.value, e.key_span, find_field(classes, k_, e.key), true, Origin::TrainerYaml);
        }
      } else {
        run.args_fully_known = false;  // the YAML is missing or not a mapping
      }
    }
  }
  apply_cli_args(l.args, classes, k_, run.args);
}

// The run's config class as its targeted TRL release has it, with TrainingArguments as the
// targeted transformers release has it, for targets older than the hand-written field lists
// (TrainingRun::defaults_class); null when both are judged by those lists.
const ClassInfo* Builder::at_target_release(const TrainingRun& run) const {
  if (!run.config_class || run.config_class->package != "trl") return nullptr;
  const VersionTargets t = version_targets(p_, run.version_anchor(), k_);
  auto older = [&](const VersionTarget& v) { return v.known() && k_.judged_by_history(v.library, *v.version); };
  const ClassInfo* c = run.config_class;
  if (older(t.trl) && !(c = k_.at(*c, *t.trl.version))) return nullptr;
  if (older(t.transformers)) c = k_.with_bases_at(*c, "transformers", *t.transformers.version);
  return c == run.config_class ? nullptr : c;
}

}  // namespace run_builder_detail

using run_builder_detail::find_field;
using run_builder_detail::from_word;
using run_builder_detail::string_to_bool;

void apply_cli_args(const std::vector<Word>& args, const std::vector<const ClassInfo*>& classes,
                    const Knowledge& knowledge, std::map<std::string, Setting, std::less<>>& out) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Word& w = args[i];
    if (!w.known || w.text.rfind("--", 0) != 0 || w.text.size() < 3) continue;
    std::string name = normalize_option_name(w.text);
    if (name == "config") {
      if (w.text.find('=') == std::string::npos) ++i;
      continue;
    }
    const FieldInfo* field = find_field(classes, knowledge, name);
    bool negated = false;
    if (!field && name.rfind("no_", 0) == 0) {
      // HfArgumentParser adds --no_<field> for bool fields that default to True.
      const FieldInfo* f = find_field(classes, knowledge, name.substr(3));
      if (f && f->type == "bool") field = f, negated = true, name = name.substr(3);
    }
    auto eq = w.text.find('=');
    if (negated) {
      out[name] = Setting::known_value(Scalar::boolean(false), w.span, Origin::CommandLine);
      continue;
    }
    if (eq != std::string::npos) {
      Word v = w;
      v.text = w.text.substr(eq + 1);
      out[name] = from_word(v, w.span, Origin::CommandLine, field);
      continue;
    }
    const bool next_is_value = i + 1 < args.size() && !(args[i + 1].known && args[i + 1].text.rfind("--", 0) == 0);
    const bool is_bool = field ? field->type == "bool" : !next_is_value;
    if (is_bool) {
      // `--packing` alone means True (nargs="?", const=True); `--packing false` reads the word.
      if (next_is_value && (!args[i + 1].known || string_to_bool(args[i + 1].text))) {
        out[name] = from_word(args[i + 1], w.span, Origin::CommandLine, field);
        ++i;
      } else {
        out[name] = Setting::known_value(Scalar::boolean(true), w.span, Origin::CommandLine);
      }
      continue;
    }
    if (next_is_value) {
      out[name] = from_word(args[i + 1], w.span, Origin::CommandLine, field);
      ++i;
    } else {
      out[name] = Setting::unknown(w.span, Origin::CommandLine);
    }
  }
}

}  // namespace trl
