// Knowledge from the YAML files themselves (yaml-cpp): used by the build-time generator
// (tools/knowledge_gen.cpp) and by tests that compare the embedded blob with the YAML.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyzer/knowledge/history_store.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/yaml/pyyaml_resolver.hpp"

namespace trl {

namespace {

ClassRole parse_role(const std::string& r) {
  if (r == "trainer_config") return ClassRole::TrainerConfig;
  if (r == "trainer") return ClassRole::Trainer;
  if (r == "parallelism_config") return ClassRole::ParallelismConfig;
  if (r == "accelerator") return ClassRole::Accelerator;
  if (r == "arg_parser") return ClassRole::ArgParser;
  if (r == "script_args") return ClassRole::ScriptArgs;
  if (r == "model_config") return ClassRole::ModelConfig;
  return ClassRole::Unknown;
}

Scalar to_scalar(const YAML::Node& n) {
  if (!n || n.IsNull()) return Scalar::null();
  if (!n.IsScalar()) return Scalar::string(n.IsSequence() ? "<list>" : "<dict>");
  // yaml-cpp gives the text; "!" marks a quoted scalar (non-plain) in its tag.
  if (n.Tag() == "!") return Scalar::string(n.Scalar());
  return yaml::resolve_plain(n.Scalar());
}

FieldInfo parse_field(const std::string& name, const YAML::Node& d, const std::string& fallback_source) {
  FieldInfo field;
  field.name = name;
  if (d.IsMap()) {
    if (d["type"]) field.type = d["type"].as<std::string>();
    if (d["default"]) {
      field.has_default = true;
      field.default_value = to_scalar(d["default"]);
    }
    if (d["nullable"]) field.nullable = d["nullable"].as<bool>();
    if (d["choices"])
      for (const auto& ch : d["choices"]) field.choices.push_back(ch.as<std::string>());
    if (d["source"]) field.source = d["source"].as<std::string>();
    if (d["accepts_bool"]) field.accepts_bool = d["accepts_bool"].as<bool>();
  }
  if (field.source.empty()) field.source = fallback_source;
  return field;
}

// True when release `a` ("0.7.5") is older than `b` ("0.9.3"): numeric parts compared in order
// (the generator does not link analyzer/eval's version comparison).
bool release_before(const std::string& a, const std::string& b) {
  auto parts = [](const std::string& v) {
    std::vector<long> out;
    std::size_t i = 0;
    while (i < v.size()) {
      long n = 0;
      while (i < v.size() && v[i] >= '0' && v[i] <= '9') {
        if (n < 100000000) n = n * 10 + (v[i] - '0');
        ++i;
      }
      out.push_back(n);
      while (i < v.size() && v[i] != '.') ++i;
      if (i < v.size()) ++i;
    }
    while (out.size() < 3) out.push_back(0);
    return out;
  };
  return parts(a) < parts(b);
}

std::string str_or_empty(const YAML::Node& n) {
  if (!n || n.IsNull()) return "";
  return n.as<std::string>();
}

}  // namespace

Knowledge Knowledge::from_texts(const std::vector<std::pair<std::string, std::string>>& files) {
  Knowledge k;
  for (const auto& [name, text] : files) k.load(name, text);
  k.index_fields();
  k.histories();  // loaded from YAML: nothing to decode, the class index is built now
  k.derive_positional_orders();
  k.derive_rename_versions();
  return k;
}

void Knowledge::derive_rename_versions() {
  for (Rename& r : renames_) {
    RenameHistory h = rename_history(r);
    if (r.deprecated.empty() && !h.deprecated.empty()) {
      r.deprecated = std::move(h.deprecated);
      r.deprecated_source = std::move(h.deprecated_source);
      r.deprecated_or_earlier = h.deprecated_at_first;
    }
    if (r.removed.empty() && !h.removed.empty()) {
      r.removed = std::move(h.removed);
      r.removed_source = std::move(h.removed_source);
    }
  }
}

void Knowledge::derive_positional_orders() {
  // Knowledge loaded without any trainer table (the hand-kept files alone, as a test reads them)
  // keeps the stated orders.
  bool any = false;
  for (const auto& entry : histories()) any = any || !entry.second.trainers.empty();
  if (!any) return;
  for (auto& [name, info] : classes_) {
    if (!info.init_positional_history) continue;
    const LibraryHistory* lib = nullptr;
    const TrainerHistory* th = nullptr;
    for (const auto& entry : histories())
      if (auto t = entry.second.trainers.find(name); t != entry.second.trainers.end()) {
        lib = &entry.second;
        th = &t->second;
      }
    if (!th || lib->releases.empty())
      throw std::runtime_error("init_positional_history of " + name + ": the trainer history has no such trainer");
    const auto& releases = lib->releases;
    auto pos = [&](const std::string& v) {
      return static_cast<std::size_t>(std::find(releases.begin(), releases.end(), v) - releases.begin());
    };
    // The hand-kept orders are those of releases before the history's first.
    for (const PositionalParams& pp : info.init_positional)
      if (!release_before(pp.from, releases.front()))
        throw std::runtime_error("init_positional of " + name + " from " + pp.from +
                                 ": the trainer history gives the orders of the releases it scans");
    // One order per release where the class exists: its positional parameters up to data_collator
    // (the one the rules read); none knowable when `*args` comes first or the __init__ is inherited
    // from a class the history does not follow.
    struct Run {
      std::size_t from = 0;
      std::vector<std::string> params;
      std::vector<std::string> sources;  // "file@vA..vB" pieces
    };
    std::vector<Run> runs;
    std::string piece_file;
    std::size_t piece_from = 0, piece_to = 0;
    auto close_piece = [&] {
      if (piece_file.empty() || runs.empty()) return;
      // "file (through shim)" -> "file@vA..vB (through shim)"
      const auto through = piece_file.find(" (through ");
      runs.back().sources.push_back(piece_file.substr(0, through) + "@v" + releases[piece_from] +
                                    (piece_from == piece_to ? "" : "..v" + releases[piece_to]) +
                                    (through == std::string::npos ? "" : piece_file.substr(through)));
      piece_file.clear();
    };
    for (std::size_t i = 0; i < releases.size(); ++i) {
      const TrainerHistory::Span* span = nullptr;
      for (const auto& sp : th->spans)
        if (pos(sp.from) <= i && i <= pos(sp.to)) span = &sp;
      if (!span) continue;
      std::vector<std::pair<int, std::pair<std::string, std::string>>> listed;  // pos, (name, kind)
      for (const auto& [pname, spans] : th->params)
        for (const auto& ps : spans)
          if (ps.pos >= 0 && pos(ps.from) <= i && i <= pos(ps.to)) listed.push_back({ps.pos, {pname, ps.kind}});
      std::sort(listed.begin(), listed.end());
      std::vector<std::string> order;
      for (const auto& [p, named] : listed) {
        if (named.second == "varargs" || !span->params_known) {
          order.clear();
          break;
        }
        if (named.second != "pos" && named.second != "posonly") break;
        order.push_back(named.first);
        if (named.first == "data_collator") break;
      }
      if (!span->params_known) order.clear();
      const std::string file = span->init_src.empty() ? span->file : span->init_src + " (through " + span->file + ")";
      if (runs.empty() || runs.back().params != order) {
        close_piece();
        runs.push_back({i, order, {}});
      }
      if (file != piece_file || piece_to + 1 != i) {
        close_piece();
        piece_file = file;
        piece_from = i;
      }
      piece_to = i;
    }
    close_piece();
    for (Run& run : runs) {
      std::string source;
      for (const auto& s : run.sources) source += (source.empty() ? "" : "; ") + s;
      source += " (release history)";
      if (!info.init_positional.empty() && info.init_positional.back().params == run.params &&
          run.from == 0) {  // the order of the last hand-kept releases holds on
        info.init_positional.back().source += "; " + source;
        continue;
      }
      info.init_positional.push_back({releases[run.from], std::move(run.params), std::move(source)});
    }
  }
}

void Knowledge::load(const std::string& file, const std::string& text) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error("knowledge file " + file + ": " + e.what());
  }
  if (auto classes = root["classes"]) {
    for (auto it = classes.begin(); it != classes.end(); ++it) {
      const std::string name = it->first.as<std::string>();
      const YAML::Node c = it->second;
      ClassInfo& info = classes_[name];
      info.name = name;
      if (c["package"]) info.package = c["package"].as<std::string>();
      if (c["role"]) info.role = parse_role(c["role"].as<std::string>());
      if (c["trainer"]) info.trainer = c["trainer"].as<std::string>();
      if (c["source"]) info.source = c["source"].as<std::string>();
      if (c["init_positional_history"]) info.init_positional_history = c["init_positional_history"].as<bool>();
      if (c["bases"])
        for (const auto& b : c["bases"]) {
          auto base = b.as<std::string>();
          if (std::find(info.bases.begin(), info.bases.end(), base) == info.bases.end()) info.bases.push_back(base);
        }
      if (auto positional = c["init_positional"]) {
        for (const auto& entry : positional) {
          PositionalParams pp;
          pp.from = str_or_empty(entry["from"]);
          pp.source = str_or_empty(entry["source"]);
          if (entry["params"])
            for (const auto& param : entry["params"]) pp.params.push_back(param.as<std::string>());
          if (pp.from.empty() || pp.source.empty())
            throw std::runtime_error("knowledge file " + file + ": init_positional of " + name +
                                     " needs `from` and `source`");
          info.init_positional.push_back(std::move(pp));
        }
      }
      if (auto fields = c["fields"]) {
        for (auto f = fields.begin(); f != fields.end(); ++f) {
          FieldInfo field = parse_field(f->first.as<std::string>(), f->second, info.source);
          info.fields[field.name] = std::move(field);
        }
      }
    }
  }
  if (auto profiles = root["accelerate_profiles"]) {
    for (auto it = profiles.begin(); it != profiles.end(); ++it) {
      AccelerateProfile p;
      p.name = it->first.as<std::string>();
      for (auto kv = it->second.begin(); kv != it->second.end(); ++kv) {
        const std::string key = kv->first.as<std::string>();
        if (key == "source")
          p.source = kv->second.as<std::string>();
        else
          p.values[key] = to_scalar(kv->second);
      }
      if (p.source.empty())
        throw std::runtime_error("knowledge file " + file + ": profile " + p.name + " has no source");
      profiles_[p.name] = std::move(p);
    }
  }
  if (auto renames = root["renames"]) {
    for (const auto& r : renames) {
      Rename rn;
      rn.cls = str_or_empty(r["class"]);
      rn.source = str_or_empty(r["source"]);
      rn.note = str_or_empty(r["note"]);
      rn.deprecated = str_or_empty(r["deprecated"]);
      rn.removed = str_or_empty(r["removed"]);
      rn.deprecated_source = str_or_empty(r["deprecated_source"]);
      rn.removed_source = str_or_empty(r["removed_source"]);
      if ((!rn.deprecated_source.empty() && rn.deprecated.empty()) ||
          (!rn.removed_source.empty() && rn.removed.empty()))
        throw std::runtime_error("knowledge file " + file + ": a rename of " + rn.cls +
                                 " cites the source of a version it does not state");
      if (r["unsafe_fix"]) rn.unsafe_fix = r["unsafe_fix"].as<bool>();
      if (r["no_fix"]) rn.no_fix = r["no_fix"].as<bool>();
      if (r["field"]) {
        rn.is_value = true;
        rn.field = str_or_empty(r["field"]);
        rn.old_value = to_scalar(r["old_value"]);
        rn.new_value = to_scalar(r["new_value"]);
      } else {
        rn.old_name = str_or_empty(r["old"]);
        rn.new_name = str_or_empty(r["new"]);
      }
      if (rn.cls.empty() || (!rn.is_value && rn.old_name.empty()))
        throw std::runtime_error("knowledge file " + file + ": a rename needs class and old");
      renames_.push_back(std::move(rn));
    }
  }
  for (const char* section :
       {"accelerate_yaml", "fsdp_config", "deepspeed_config", "parallelism_config", "dynamo_config"}) {
    if (auto keys = root[section]) {
      auto& out = accelerate_sections_[section];
      for (auto it = keys.begin(); it != keys.end(); ++it) {
        FieldInfo field = parse_field(it->first.as<std::string>(), it->second, "");
        out[field.name] = std::move(field);
      }
    }
  }
  if (auto libs = root["libraries"]) {
    for (auto it = libs.begin(); it != libs.end(); ++it) {
      LibraryReleases lib;
      lib.name = it->first.as<std::string>();
      const YAML::Node d = it->second;
      if (d["releases"])
        for (const auto& v : d["releases"]) lib.releases.push_back(v.as<std::string>());
      lib.newest = str_or_empty(d["newest"]);
      lib.fields_complete_from = str_or_empty(d["fields_complete_from"]);
      lib.source = str_or_empty(d["source"]);
      if (lib.newest.empty() && !lib.releases.empty()) lib.newest = lib.releases.back();
      libraries_[lib.name] = std::move(lib);
    }
  }
  if (auto patchers = root["patchers"]) {
    for (auto it = patchers.begin(); it != patchers.end(); ++it) {
      Patcher p;
      p.name = it->first.as<std::string>();
      const YAML::Node d = it->second;
      p.source = str_or_empty(d["source"]);
      if (d["modules"])
        for (const auto& m : d["modules"]) p.modules.push_back(m.as<std::string>());
      if (auto classes = d["classes"])
        for (auto c = classes.begin(); c != classes.end(); ++c) {
          PatchedClass& pc = p.classes[c->first.as<std::string>()];
          if (c->second["rebinds"]) pc.rebinds = c->second["rebinds"].as<bool>();
          if (c->second["accepts"])
            for (const auto& a : c->second["accepts"]) pc.accepts.push_back(a.as<std::string>());
          if (auto values = c->second["values"])
            for (auto v = values.begin(); v != values.end(); ++v)
              for (const YAML::Node listed_values = v->second; const auto& x : listed_values)
                pc.values[v->first.as<std::string>()].push_back(x.as<std::string>());
        }
      if (p.source.empty() || p.modules.empty())
        throw std::runtime_error("knowledge file " + file + ": patcher " + p.name + " needs `modules` and `source`");
      patchers_[p.name] = std::move(p);
    }
  }
  if (auto history = root["history"]) {
    for (auto it = history.begin(); it != history.end(); ++it) {
      LibraryHistory& lib = history_->libraries[it->first.as<std::string>()];
      lib.library = it->first.as<std::string>();
      const YAML::Node d = it->second;
      if (d["releases"])
        for (const auto& v : d["releases"]) lib.releases.push_back(v.as<std::string>());
      auto listed = [&](const std::string& v, const std::string& what) {
        if (std::find(lib.releases.begin(), lib.releases.end(), v) == lib.releases.end())
          throw std::runtime_error("knowledge file " + file + ": " + what + ": `" + v + "` is not a listed release");
        return v;
      };
      if (auto trainers = d["trainers"]) {
        for (auto t = trainers.begin(); t != trainers.end(); ++t) {
          TrainerHistory th;
          th.name = t->first.as<std::string>();
          for (const auto& sp : t->second["spans"]) {
            TrainerHistory::Span span;
            span.from = listed(str_or_empty(sp["from"]), th.name);
            span.to = listed(str_or_empty(sp["to"]), th.name);
            span.file = str_or_empty(sp["file"]);
            span.init_src = str_or_empty(sp["init_src"]);
            span.params_known = str_or_empty(sp["init"]) != "unknown";
            th.spans.push_back(std::move(span));
          }
          auto file_at = [&](const std::string& v) -> std::string {
            auto pos = [&](const std::string& x) {
              return std::find(lib.releases.begin(), lib.releases.end(), x) - lib.releases.begin();
            };
            for (const auto& span : th.spans)
              if (pos(span.from) <= pos(v) && pos(v) <= pos(span.to))
                return span.init_src.empty() ? span.file : span.init_src;
            return "";
          };
          if (auto params = t->second["params"]) {
            for (auto p = params.begin(); p != params.end(); ++p) {
              const std::string pname = p->first.as<std::string>();
              auto& spans = th.params[pname];
              const YAML::Node listed_spans = p->second;  // a copy: see the fields below
              for (const auto& e : listed_spans) {
                TrainerHistory::ParamSpan ps;
                ps.from = listed(str_or_empty(e["from"]), th.name + "." + pname);
                ps.to = listed(str_or_empty(e["to"]), th.name + "." + pname);
                if (e["pos"]) ps.pos = e["pos"].as<int>();
                ps.kind = str_or_empty(e["kind"]);
                ps.required = e["required"] && e["required"].as<bool>();
                ps.deprecated = e["deprecated"] && e["deprecated"].as<bool>();
                ps.new_name = str_or_empty(e["new"]);
                const std::string src = e["src"] ? str_or_empty(e["src"]) : file_at(ps.from);
                ps.source = range_source(src, ps.from, ps.to);
                spans.push_back(std::move(ps));
              }
            }
          }
          std::string name = th.name;
          lib.trainers[name] = std::move(th);
        }
      }
      if (!d["classes"]) continue;
      for (auto c = d["classes"].begin(); c != d["classes"].end(); ++c) {
        ClassHistory ch;
        ch.name = c->first.as<std::string>();
        ch.library = lib.library;
        for (const auto& sp : c->second["spans"]) {
          ClassHistory::Span span;
          span.from = listed(str_or_empty(sp["from"]), ch.name);
          span.to = listed(str_or_empty(sp["to"]), ch.name);
          span.file = str_or_empty(sp["file"]);
          for (const auto& b : sp["bases"]) span.bases.push_back(b.as<std::string>());
          ch.spans.push_back(std::move(span));
        }
        // The class's file in the span that holds release `v`.
        auto file_at = [&](const std::string& v) -> std::string {
          auto pos = [&](const std::string& x) {
            return std::find(lib.releases.begin(), lib.releases.end(), x) - lib.releases.begin();
          };
          for (const auto& span : ch.spans)
            if (pos(span.from) <= pos(v) && pos(v) <= pos(span.to)) return span.file;
          return "";
        };
        if (auto fields = c->second["fields"]) {
          for (auto f = fields.begin(); f != fields.end(); ++f) {
            const std::string fname = f->first.as<std::string>();
            auto& spans = ch.fields[fname];
            // A copy of the node: `f->second` belongs to a proxy that ends with the expression.
            const YAML::Node listed_spans = f->second;
            for (const auto& e : listed_spans) {
              ClassHistory::FieldSpan fs;
              fs.from = listed(str_or_empty(e["from"]), ch.name + "." + fname);
              fs.to = listed(str_or_empty(e["to"]), ch.name + "." + fname);
              std::string src = e["src"] ? str_or_empty(e["src"]) : file_at(fs.from);
              fs.info = parse_field(fname, e, "");
              fs.info.source = range_source(src, fs.from, fs.to);
              fs.deprecated = e["deprecated"] && e["deprecated"].as<bool>();
              spans.push_back(std::move(fs));
            }
          }
        }
        std::string name = ch.name;
        lib.classes[name] = std::move(ch);
      }
    }
  }
  if (auto flags = root["launch_flags"]) {
    for (auto it = flags.begin(); it != flags.end(); ++it) {
      LaunchFlag flag;
      flag.name = it->first.as<std::string>();
      const YAML::Node d = it->second;
      if (d.IsMap()) {
        if (d["value"]) flag.takes_value = d["value"].as<bool>();
        if (d["type"]) flag.type = d["type"].as<std::string>();
        if (d["aliases"])
          for (const auto& a : d["aliases"]) launch_flags_[a.as<std::string>()] = flag;
      }
      launch_flags_[flag.name] = flag;
    }
  }
}

}  // namespace trl
