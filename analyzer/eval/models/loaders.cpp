// Models of the calls through which a script reads files: `open(...)` and `pathlib.Path(...)`
// (a Path value, joined with `/`, read with `.read_text()` / `.open()`), and the loaders that
// turn a YAML or JSON file of the project into values: yaml.safe_load / load / full_load,
// OmegaConf.load, json.load / loads. The file's values keep their spans, so that a finding
// points into the file.
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "analyzer/eval/models/library_models.hpp"
#include "analyzer/project/project.hpp"

namespace fs = std::filesystem;

namespace trl::pyeval {

namespace {

constexpr int kMaxYamlDepth = 64;

ValueRef from_yaml(const YamlNode& n, int depth, std::size_t& budget) {
  if (depth > kMaxYamlDepth || budget == 0) return make_unknown(n.span);
  --budget;
  switch (n.kind) {
    case YamlNode::Kind::Scalar: return make_const(n.scalar, n.span);
    case YamlNode::Kind::Mapping: {
      auto d = std::make_shared<PyValue>();
      d->kind = PyValue::Kind::Dict;
      d->span = n.span;
      for (const auto& e : n.entries) d->members.push_back({e.key, from_yaml(*e.value, depth + 1, budget), e.key_span});
      keep_last_of_each(d->members);
      return d;
    }
    case YamlNode::Kind::Sequence: {
      auto l = std::make_shared<PyValue>();
      l->kind = PyValue::Kind::List;
      l->span = n.span;
      for (const auto& i : n.items) l->items.push_back(from_yaml(*i, depth + 1, budget));
      return l;
    }
    default: return make_unknown(n.span);
  }
}

}  // namespace

// yaml.safe_load(open("x.yaml")) and friends: the YAML file's values, with spans into it.
// `source` is a Path (or open file); `path_string` also accepts a plain string as the path
// (OmegaConf.load, parse_yaml_file take file names; yaml.safe_load would parse a string itself).
// `kind` is the kind of file the loader reads: JSON loaders take only the JSON files Python
// names (read with JSON semantics), YAML loaders only YAML files.
ValueRef load_data_file(Exec& ex, const ValueRef& source, Span site, bool path_string, FileKind kind) {
  ProjectEvaluator::Impl& ev = ex.ev_;
  std::string path;
  if (source->kind == PyValue::Kind::Path)
    path = source->qualified;
  else if (path_string && source->kind == PyValue::Kind::Const && source->constant.kind == Scalar::Kind::Str)
    path = source->constant.s;
  if (path.empty()) return make_unknown(site);
  std::vector<std::string> bases{ev.project.root,
                                 fs::path(ev.project.sources.get(ex.env_.file).abs_path).parent_path().string()};
  std::error_code ec;
  bases.push_back(fs::current_path(ec).string());
  FileId id = ev.project.resolve(path, bases);
  if (id != kNoFile) ev.data_files.insert(id);
  if (id == kNoFile || ev.project.sources.get(id).kind != kind || ev.project.facts[id].yaml.empty() ||
      !ev.project.facts[id].yaml.front().root)
    return make_unknown(site);
  std::size_t budget = 10000;
  ValueRef v = from_yaml(*ev.project.facts[id].yaml.front().root, 0, budget);
  // Building the value is work of its own: charged to the step budget, so that thousands of
  // loads of a large file stay bounded like thousands of statements.
  ev.steps += (10000 - budget) / 16;
  return with_step(v, site, "loaded from " + ev.project.sources.get(id).path);
}

// open("x.yaml"), pathlib.Path("configs"), Path(other_path): a Path value of that text.
ValueRef open_path(Exec& ex, const LibraryCall& call) {
  Args args = ex.eval_args(call.e, call.scope, call.depth);
  if (args.positional.empty()) return make_unknown(call.e.span);
  const ValueRef& p = args.positional[0];
  auto out = std::make_shared<PyValue>();
  out->kind = PyValue::Kind::Path;
  out->span = call.e.span;
  if (p->kind == PyValue::Kind::Path)
    out->qualified = p->qualified;
  else if (p->kind == PyValue::Kind::Const && p->constant.kind == Scalar::Kind::Str)
    out->qualified = p->constant.s;
  else
    return make_unknown(call.e.span);
  return out;
}

// `path.read_text()`, `path.open()`: the file itself, for a loader to read.
ValueRef path_method(Exec& /*ex*/, const MethodCall& call) {
  if (call.fn.name == "read_text" || call.fn.name == "open") return call.self;
  return nullptr;
}

// yaml.safe_load(open("x.yaml")), yaml.load, yaml.full_load: the YAML file's values.
ValueRef yaml_load(Exec& ex, const LibraryCall& call) {
  Args args = ex.eval_args(call.e, call.scope, call.depth);
  if (args.positional.empty()) return make_unknown(call.e.span);
  return load_data_file(ex, args.positional[0], call.e.span, false);
}

// OmegaConf.load("x.yaml"): the same, from a file name too.
ValueRef omegaconf_load(Exec& ex, const LibraryCall& call) {
  Args args = ex.eval_args(call.e, call.scope, call.depth);
  if (args.positional.empty()) return make_unknown(call.e.span);
  return load_data_file(ex, args.positional[0], call.e.span, true);
}

// json.load(open("x.json")), json.loads(Path("x.json").read_text()): the JSON file's values.
ValueRef json_load(Exec& ex, const LibraryCall& call) {
  Args args = ex.eval_args(call.e, call.scope, call.depth);
  if (args.positional.empty()) return make_unknown(call.e.span);
  return load_data_file(ex, args.positional[0], call.e.span, false, FileKind::Json);
}

}  // namespace trl::pyeval
