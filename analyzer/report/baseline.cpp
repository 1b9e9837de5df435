#include "analyzer/report/baseline.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "analyzer/report/location.hpp"
#include "analyzer/source/source_file.hpp"

namespace fs = std::filesystem;

namespace trl {

namespace {

using Key = std::tuple<std::string, std::string, std::string>;  // path, code, line text
constexpr int kVersion = 1;

fs::path baseline_dir(const std::string& file) {
  std::error_code ec;
  fs::path abs = fs::absolute(file, ec);
  return fs::weakly_canonical(abs.parent_path(), ec);
}

std::string key_path(const SourceFile& f, const fs::path& dir) {
  if (f.abs_path.rfind("<skipped>/", 0) == 0) return f.path;
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(f.abs_path, ec);
  if (ec) abs = f.abs_path;
  fs::path rel = abs.lexically_relative(dir);
  return rel.empty() ? abs.generic_string() : rel.generic_string();
}

// A key's text as the baseline file holds it: JSON is UTF-8, so bytes that are not (a file name
// in another encoding) are written as U+FFFD. Findings are compared in that form too, or the
// entry of such a file would never match its finding.
std::string as_stored(std::string text) {
  if (is_valid_utf8(text)) return text;
  const std::string dumped = nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return nlohmann::json::parse(dumped).get<std::string>();
}

Key key_of(const Diagnostic& d, const Project& project, const fs::path& dir) {
  const SourceFile& f = project.sources.get(d.span.file);
  return {as_stored(key_path(f, dir)), as_stored(d.code), normalized_line(f.line_text(d.span.start.line))};
}

}  // namespace

void write_baseline(const std::string& file, const std::vector<Diagnostic>& diags, const Project& project) {
  const fs::path dir = baseline_dir(file);
  std::map<Key, std::size_t> counts;
  for (const auto& d : diags) ++counts[key_of(d, project, dir)];
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  for (const auto& [key, count] : counts) {
    const auto& [path, code, line] = key;
    findings.push_back({{"path", path}, {"code", code}, {"line", line}, {"count", count}});
  }
  nlohmann::ordered_json doc;
  doc["version"] = kVersion;
  doc["tool"] = "trl-lint";
  doc["findings"] = std::move(findings);
  // Write beside the target and rename, so an interrupted run never leaves half a baseline.
  const std::string tmp = file + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw BaselineError("cannot write " + tmp);
    out << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
    if (!out.flush()) throw BaselineError("cannot write " + tmp);
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw BaselineError("cannot write " + file);
  }
}

std::size_t apply_baseline(const std::string& file, std::vector<Diagnostic>& diags, const Project& project) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw BaselineError(file + ": cannot read the baseline");
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("findings") || !doc["findings"].is_array())
    throw BaselineError(file + ": not a trl-lint baseline (expected a JSON object with `findings`)");
  if (doc.value("version", 0) != kVersion)
    throw BaselineError(file + ": unsupported baseline version (this trl-lint reads version " +
                        std::to_string(kVersion) + ")");
  std::map<Key, std::size_t> remaining;
  for (const auto& f : doc["findings"]) {
    if (!f.is_object() || !f.contains("path") || !f["path"].is_string() || !f.contains("code") ||
        !f["code"].is_string() || !f.contains("line") || !f["line"].is_string())
      throw BaselineError(file + ": malformed entry " + f.dump());
    std::size_t count = 1;
    if (f.contains("count")) {
      if (!f["count"].is_number_unsigned()) throw BaselineError(file + ": malformed entry " + f.dump());
      count = f["count"].get<std::size_t>();
    }
    remaining[{f["path"].get<std::string>(), f["code"].get<std::string>(), f["line"].get<std::string>()}] += count;
  }
  const fs::path dir = baseline_dir(file);
  const std::size_t before = diags.size();
  std::erase_if(diags, [&](const Diagnostic& d) {
    auto it = remaining.find(key_of(d, project, dir));
    if (it == remaining.end() || it->second == 0) return false;
    --it->second;
    return true;
  });
  return before - diags.size();
}

}  // namespace trl
