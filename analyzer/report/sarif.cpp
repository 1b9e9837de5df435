// `--output-format sarif`: SARIF 2.1.0 as GitHub code scanning ingests it.
//
// - tool.driver.rules lists every code trl-lint can report (rules, then TRL9xx), with short and
//   full descriptions, help (text and Markdown: the rule's documentation), helpUri, default
//   level, and properties precision / problem.severity / tags. Results point at them with
//   ruleId and ruleIndex.
// - Paths are relative URIs against `%SRCROOT%`, the current directory (where the paths in
//   every other format are relative to); `originalUriBaseIds` gives its absolute file URI.
//   A file outside the current directory gets an absolute `file://` URI.
// - Regions have startLine, startColumn, endLine, endColumn: 1-based, columns in Unicode code
//   points (`columnKind: unicodeCodePoints`), the end column exclusive.
// - partialFingerprints.primaryLocationLineHash is computed here as codeql-action would
//   (fingerprint.hpp), so uploads through the REST API keep alerts stable too.
// - Related locations carry their messages; the same chain is a codeFlow (primary location
//   first, then each related location) so code scanning shows the provenance as a path.
// - Fixes become `fixes[].artifactChanges[].replacements[]`.
// Messages end with a period, as SARIF recommends.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "analyzer/report/fingerprint.hpp"
#include "analyzer/report/formatters.hpp"
#include "analyzer/report/location.hpp"
#include "rules/registry.hpp"

#ifndef TRL_LINT_VERSION
#define TRL_LINT_VERSION "0.0.0"
#endif

namespace trl {

std::string uri_path(std::string_view path) {
  static const std::string_view keep = "-._~!$&'()*+,;=@/";
  static const char* digits = "0123456789ABCDEF";
  std::string out;
  for (char ch : path) {
    auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || keep.find(ch) != std::string_view::npos) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(digits[c >> 4]);
      out.push_back(digits[c & 0xF]);
    }
  }
  return out;
}

namespace {

using Json = nlohmann::ordered_json;
constexpr const char* kSrcRoot = "%SRCROOT%";

std::string sentence(std::string text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.pop_back();
  if (text.empty()) return ".";
  const char last = text.back();
  if (last != '.' && last != '!' && last != '?') text.push_back('.');
  return text;
}

const char* level(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "note";
  }
  return "warning";
}

const char* problem_severity(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "recommendation";
  }
  return "warning";
}

// The "What it does" paragraph of a rule's documentation, on one line (GitHub shows at most
// 1024 characters).
std::string what_it_does(const RuleInfo& info) {
  const std::string heading = "## What it does\n";
  std::size_t b = info.doc.find(heading);
  if (b == std::string::npos) return sentence(info.summary);
  b += heading.size();
  std::size_t e = info.doc.find("\n\n", b);
  std::string text = info.doc.substr(b, e == std::string::npos ? std::string::npos : e - b);
  for (char& c : text)
    if (c == '\n') c = ' ';
  if (text.size() > 1000) text = text.substr(0, 1000) + "...";
  return sentence(text);
}

Json rule_descriptor(const RuleInfo& info) {
  Json r;
  r["id"] = info.code;
  r["name"] = info.name;
  r["shortDescription"] = {{"text", sentence(info.summary)}};
  r["fullDescription"] = {{"text", what_it_does(info)}};
  const std::string doc = info.doc.empty() ? sentence(info.summary) : info.doc;
  r["help"] = {{"text", doc}, {"markdown", doc}};
  r["helpUri"] = rule_doc_url(info.code);
  r["defaultConfiguration"] = {{"level", level(info.severity)}};
  Json tags = Json::array();
  tags.push_back(rule_family(info.code));
  if (const RuleFamily* f = family_of_code(info.code); !f || !f->tool) tags.push_back("correctness");
  r["properties"] = {{"precision", "very-high"}, {"problem.severity", problem_severity(info.severity)}, {"tags", tags}};
  return r;
}

class SarifWriter {
 public:
  explicit SarifWriter(const Project& project) : project_(project) {
    const auto infos = all_rule_infos();
    for (std::size_t i = 0; i < infos.size(); ++i) {
      rule_index_[infos[i]->code] = i;
      rules_.push_back(rule_descriptor(*infos[i]));
    }
  }

  Json log(const std::vector<Diagnostic>& diags) {
    Json results = Json::array();
    for (const auto& d : diags) results.push_back(result(d));
    Json driver;
    driver["name"] = "trl-lint";
    driver["version"] = TRL_LINT_VERSION;
    driver["semanticVersion"] = TRL_LINT_VERSION;
    driver["informationUri"] = "https://github.com/trl-lint/trl-lint";
    driver["rules"] = rules_;
    Json run;
    run["tool"] = {{"driver", std::move(driver)}};
    run["invocations"] = Json::array({Json{{"executionSuccessful", true}}});
    run["originalUriBaseIds"] = {{kSrcRoot, {{"uri", src_root_uri()}}}};
    run["columnKind"] = "unicodeCodePoints";
    run["results"] = std::move(results);
    Json sarif;
    sarif["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
    sarif["version"] = "2.1.0";
    sarif["runs"] = Json::array({std::move(run)});
    return sarif;
  }

 private:
  static std::string src_root_uri() {
    std::error_code ec;
    std::string cwd = std::filesystem::current_path(ec).generic_string();
    if (cwd.empty() || cwd.back() != '/') cwd.push_back('/');
    return "file://" + uri_path(cwd);
  }

  Json artifact(FileId file) const {
    const SourceFile& f = project_.sources.get(file);
    if (f.path.rfind("../", 0) == 0 || f.path.rfind('/', 0) == 0 || f.path == "..")
      return {{"uri", "file://" + uri_path(std::filesystem::path(f.abs_path).generic_string())}};
    return {{"uri", uri_path(f.path)}, {"uriBaseId", kSrcRoot}};
  }

  Json region(const Span& span) const {
    const Position s = start_position(project_, span);
    const Position e = end_position(project_, span);
    return {{"startLine", s.line}, {"startColumn", s.column}, {"endLine", e.line}, {"endColumn", e.column}};
  }

  Json physical(const Span& span) const {
    return {{"artifactLocation", artifact(span.file)}, {"region", region(span)}};
  }

  const std::string& fingerprint(const Span& span) {
    auto it = fingerprints_.find(span.file);
    if (it == fingerprints_.end())
      it = fingerprints_.emplace(span.file, line_fingerprints(project_.sources.get(span.file).text)).first;
    const auto& lines = it->second;
    std::size_t line = span.start.line < lines.size() ? span.start.line : 0;
    return lines.at(line);
  }

  Json result(const Diagnostic& d) {
    Json r;
    r["ruleId"] = d.code;
    if (auto it = rule_index_.find(d.code); it != rule_index_.end()) r["ruleIndex"] = it->second;
    r["level"] = level(d.severity);
    r["message"] = {{"text", sentence(d.message)}};
    r["locations"] = Json::array({Json{{"physicalLocation", physical(d.span)}}});
    r["partialFingerprints"] = {{"primaryLocationLineHash", fingerprint(d.span)}};
    Json related = Json::array();
    Json flow = Json::array();
    {
      Json loc{{"physicalLocation", physical(d.span)},
               {"message", {{"text", sentence(d.label.empty() ? d.message : d.label)}}}};
      flow.push_back({{"location", std::move(loc)}});
    }
    int id = 0;
    for (const auto& rel : d.related) {
      if (!rel.span.valid()) continue;
      Json loc{{"id", ++id}, {"physicalLocation", physical(rel.span)}, {"message", {{"text", sentence(rel.message)}}}};
      related.push_back(loc);
      loc.erase("id");
      flow.push_back({{"location", std::move(loc)}});
    }
    if (!related.empty()) {
      r["relatedLocations"] = std::move(related);
      r["codeFlows"] = Json::array({Json{{"threadFlows", Json::array({Json{{"locations", std::move(flow)}}})}}});
    }
    if (!d.fixes.empty()) {
      Json fixes = Json::array();
      for (const auto& f : d.fixes) fixes.push_back(fix(f));
      r["fixes"] = std::move(fixes);
    }
    return r;
  }

  Json fix(const Fix& f) const {
    std::map<FileId, Json> by_file;
    for (const auto& e : f.edits) {
      Json rep;
      rep["deletedRegion"] = region(e.span);
      if (!e.replacement.empty()) rep["insertedContent"] = {{"text", e.replacement}};
      by_file[e.span.file].push_back(std::move(rep));
    }
    Json changes = Json::array();
    for (auto& [file, reps] : by_file)
      changes.push_back({{"artifactLocation", artifact(file)}, {"replacements", std::move(reps)}});
    return {{"description", {{"text", sentence(f.title)}}}, {"artifactChanges", std::move(changes)}};
  }

  const Project& project_;
  Json rules_ = Json::array();
  std::map<std::string, std::size_t> rule_index_;
  std::map<FileId, std::vector<std::string>> fingerprints_;
};

}  // namespace

void print_sarif(std::ostream& out, const std::vector<Diagnostic>& diags, const Project& project) {
  SarifWriter writer(project);
  out << writer.log(diags).dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace trl
