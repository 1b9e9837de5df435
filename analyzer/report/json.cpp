// `--output-format json` (one array) and `json-lines` (one object per line). Each finding:
//   code, name, severity ("error" | "warning" | "info"), message, url,
//   location {path, line, column}, end_location {path, line, column} (exclusive end),
//   label (text under the primary location; "" when none),
//   related [{message, location, end_location}]: the provenance chain, in the order the rule
//     gives it (where each conflicting value was set, then where they meet),
//   notes [text], help (text or null),
//   fixes [{title, applicability ("safe" | "unsafe"), edits [{location, end_location, content}]}].
// Lines and columns are 1-based; columns count Unicode code points.
#include <nlohmann/json.hpp>

#include "analyzer/report/formatters.hpp"
#include "analyzer/report/location.hpp"
#include "rules/registry.hpp"

namespace trl {

namespace {

using Json = nlohmann::ordered_json;

Json position(const Project& project, const Span& span, Position p) {
  Json j;
  j["path"] = project.sources.get(span.file).path;
  j["line"] = p.line;
  j["column"] = p.column;
  return j;
}

Json finding(const Diagnostic& d, const Project& project) {
  Json j;
  j["code"] = d.code;
  j["name"] = d.name;
  j["severity"] = to_string(d.severity);
  j["message"] = d.message;
  j["url"] = rule_doc_url(d.code);
  j["location"] = position(project, d.span, start_position(project, d.span));
  j["end_location"] = position(project, d.span, end_position(project, d.span));
  j["label"] = d.label;
  Json related = Json::array();
  for (const auto& r : d.related) {
    if (!r.span.valid()) continue;
    Json o;
    o["message"] = r.message;
    o["location"] = position(project, r.span, start_position(project, r.span));
    o["end_location"] = position(project, r.span, end_position(project, r.span));
    related.push_back(std::move(o));
  }
  j["related"] = std::move(related);
  j["notes"] = d.notes;
  j["help"] = d.help ? Json(*d.help) : Json(nullptr);
  Json fixes = Json::array();
  for (const auto& f : d.fixes) {
    Json o;
    o["title"] = f.title;
    o["applicability"] = f.safe ? "safe" : "unsafe";
    Json edits = Json::array();
    for (const auto& e : f.edits) {
      Json edit;
      edit["location"] = position(project, e.span, start_position(project, e.span));
      edit["end_location"] = position(project, e.span, end_position(project, e.span));
      edit["content"] = e.replacement;
      edits.push_back(std::move(edit));
    }
    o["edits"] = std::move(edits);
    fixes.push_back(std::move(o));
  }
  j["fixes"] = std::move(fixes);
  return j;
}

}  // namespace

void print_json(std::ostream& out, const std::vector<Diagnostic>& diags, const Project& project) {
  Json all = Json::array();
  for (const auto& d : diags) all.push_back(finding(d, project));
  out << all.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

void print_json_lines(std::ostream& out, const std::vector<Diagnostic>& diags, const Project& project) {
  for (const auto& d : diags) out << finding(d, project).dump(-1, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace trl
