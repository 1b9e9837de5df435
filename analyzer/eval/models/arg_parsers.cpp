// Models of the argument parsers HfArgumentParser and TrlParser (classes of role arg_parser
// in the knowledge): the dataclasses a parser is built with, and the parse_* methods that fill
// them from argv and `--config` (values the launch gives: run_builder.cpp reads them), or from
// a YAML or JSON file or a dict the script names (the file's values).
#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "analyzer/eval/models/library_models.hpp"
#include "analyzer/knowledge/knowledge.hpp"

namespace trl::pyeval {

// TrlParser((ScriptArguments, SFTConfig, ModelConfig)) or HfArgumentParser(SFTConfig): the
// dataclasses the parser fills.
void arg_parser_built(Exec& ex, const std::shared_ptr<PyValue>& parser, const Args& args) {
  ValueRef types = !args.positional.empty() ? args.positional[0] : nullptr;
  if (const Member* dt = parser->member("dataclass_types")) types = dt->value;
  if (types && (types->kind == PyValue::Kind::Tuple || types->kind == PyValue::Kind::List))
    parser->parser_classes = types->items;
  else if (types)
    parser->parser_classes.push_back(types);
  ex.ev_.parsers.push_back(parser);
}

// A method of an argument parser (any other returns an unknown value):
// HfArgumentParser.parse_args_into_dataclasses / TrlParser.parse_args_and_config read argv and
// --config; parse_yaml_file / parse_json_file read a file we can see (values passed unchanged:
// transformers hf_argparser.py parse_dict, no type conversion).
ValueRef arg_parser_method(Exec& ex, const MethodCall& call) {
  const PyValue& parser = *call.self;
  const std::string& method = call.fn.name;
  const py::Expr& e = call.e;
  Args args = ex.eval_args(e, call.scope, call.depth);
  bool from_argv = method == "parse_args_and_config" || method == "parse_args_into_dataclasses";
  // Arguments given in the call (`args=[...]`, the first parameter of both) replace argv: what
  // the launch line passes does not reach the dataclasses, and what the list holds is not
  // followed here (TrlParser.parse_args_and_config: `args = list(args) if args is not None else
  // sys.argv[1:]`, trl/scripts/utils.py v0.13.0..v1.9.0; HfArgumentParser likewise, transformers
  // hf_argparser.py). The dataclasses are then unknown.
  bool explicit_args = false;
  if (from_argv) {
    if (!args.positional.empty() &&
        !(args.positional[0]->is_const() && args.positional[0]->constant.kind == Scalar::Kind::Null))
      explicit_args = true;
    for (const auto& kw : args.keywords)
      if (kw.name == "args" && !(kw.value->is_const() && kw.value->constant.kind == Scalar::Kind::Null))
        explicit_args = true;
  }
  const bool from_file = method == "parse_yaml_file" || method == "parse_json_file" || method == "parse_dict";
  if (!from_argv && !from_file) return make_unknown(e.span);
  ValueRef data;
  if (from_file) {
    // The first parameter: parse_yaml_file(yaml_file), parse_json_file(json_file), parse_dict(args).
    static const std::pair<std::string_view, std::string_view> first_param[] = {
        {"parse_yaml_file", "yaml_file"}, {"parse_json_file", "json_file"}, {"parse_dict", "args"}};
    ValueRef arg = args.positional.empty() ? nullptr : args.positional[0];
    for (const auto& [m, param] : first_param)
      for (const auto& kw : args.keywords)
        if (!arg && m == method && kw.name == param) arg = kw.value;
    if (!arg) return make_unknown(e.span);
    data = method == "parse_dict"        ? arg
           : method == "parse_json_file" ? load_data_file(ex, arg, e.span, true, FileKind::Json)
                                         : load_data_file(ex, arg, e.span, true);
    if (data->kind != PyValue::Kind::Dict) return make_unknown(e.span);
  }
  auto tuple = std::make_shared<PyValue>();
  tuple->kind = PyValue::Kind::Tuple;
  tuple->span = e.span;
  for (const auto& c : parser.parser_classes) {
    const ClassInfo* info = c->cls;
    if ((c->kind == PyValue::Kind::Symbol || c->kind == PyValue::Kind::Class) && (info || c->is_dataclass)) {
      auto obj = ex.new_object(info, c->qualified, e.span);
      if (c->kind == PyValue::Kind::Class) obj->user_class = c;
      if (explicit_args) {
        obj->complete = false;
      } else if (from_argv) {
        obj->from_parser = true;
        // Only parse_args_and_config reads `--config` (TrlParser, trl/scripts/utils.py);
        // A method of an argument parser (any other returns an unknown value):
        // HfArgumentParser.parse_args_into_dataclasses leaves the flag to argparse, which
        // rejects it (transformers hf_argparser.py: "Some specified arguments are not used").
        obj->parser_reads_config = method == "parse_args_and_config";
      } else {
        for (const auto& m : data->members) {
          bool mine =
              (info && ex.ev_.k.field(*info, m.name)) ||
              (c->kind == PyValue::Kind::Class &&
               std::find(c->dataclass_fields.begin(), c->dataclass_fields.end(), m.name) != c->dataclass_fields.end());
          if (mine) obj->members.push_back(m);
        }
        obj->complete = data->complete;
      }
      tuple->items.push_back(ex.register_object(obj));
    } else {
      tuple->items.push_back(make_unknown(e.span));
    }
  }
  for (const auto& kw : args.keywords) {
    if (kw.name == "return_remaining_strings" && !(kw.value->is_const() && !kw.value->constant.truthy())) {
      tuple->items.push_back(make_unknown(e.span));
      ex.ev_.parser_keeps_unknown = true;
    }
    // TrlParser.parse_args_and_config(fail_with_unknown_args=False) hands unknown keys back too;
    // anything but a known False may do so.
    if (kw.name == "fail_with_unknown_args" && !(kw.value->is_const() && kw.value->constant.truthy()))
      ex.ev_.parser_keeps_unknown = true;
  }
  return tuple;
}

}  // namespace trl::pyeval
