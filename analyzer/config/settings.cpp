#include "analyzer/config/settings.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "rules/registry.hpp"

namespace fs = std::filesystem;

namespace trl {

namespace {

std::string position(const ConfigLocation& where) {
  std::error_code ec;
  fs::path rel = fs::path(where.path).lexically_relative(fs::current_path(ec));
  const std::string shown = ec || rel.empty() || *rel.begin() == ".." ? where.path : rel.generic_string();
  return shown + ":" + std::to_string(where.start.line + 1) + ":" + std::to_string(where.start.column + 1);
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same =
          std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

ConfigError::ConfigError(const ConfigLocation& where, const std::string& message)
    : std::runtime_error(position(where) + ": " + message) {}

PathPattern::PathPattern(std::string dir, std::string pattern) : base_dir(std::move(dir)), glob(std::move(pattern)) {
  std::string g = glob;
  while (g.size() > 1 && g.back() == '/') g.pop_back();
  if (g.rfind("./", 0) == 0) g = g.substr(2);
  anchored_ = g.find('/') != std::string::npos;
  compiled_ = glob_detail::Glob(std::move(g));
}

bool PathPattern::matches(const std::string& abs_path) const {
  const fs::path rel = fs::path(abs_path).lexically_relative(base_dir);
  if (rel.empty() || *rel.begin() == "..") return false;
  // The path itself, then each folder above it: `legacy` or `legacy/old` covers the files below.
  std::string prefix;
  for (const auto& part : rel) {
    const std::string name = part.generic_string();
    prefix = prefix.empty() ? name : prefix + "/" + name;
    if (compiled_.matches(prefix)) return true;
    if (!anchored_ && compiled_.matches(name)) return true;
  }
  return false;
}

bool selector_matches(const std::string& selector, const std::string& code) {
  if (selector == "ALL") return true;
  if (code.rfind(selector, 0) == 0) return true;
  if (const Rule* r = find_rule(selector)) return r->info().code == code;
  return false;
}

const std::vector<std::string>& known_codes() {
  static const std::vector<std::string> codes = [] {
    std::vector<std::string> out;
    for (const auto& r : all_rules()) out.push_back(r->info().code);
    return out;
  }();
  return codes;
}

void check_selector(const std::string& selector, const ConfigLocation* where) {
  if (selector == "ALL" || find_rule(selector)) return;
  for (const auto& c : known_codes())
    if (c.rfind(selector, 0) == 0 && !selector.empty()) return;
  std::vector<std::string> candidates = known_codes();
  for (const auto& r : all_rules()) candidates.push_back(r->info().name);
  std::string message = "unknown rule selector `" + selector + "`";
  if (auto s = did_you_mean(selector, candidates)) message += "; did you mean `" + *s + "`?";
  message += " (see `trl-lint rule --all`)";
  if (where) throw ConfigError(*where, message);
  throw ConfigError(message);
}

std::optional<std::string> did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    // A prefix (`warn` for `warning`) counts as one edit.
    const bool prefix = word.size() >= 3 && c.size() > word.size() && c.compare(0, word.size(), word) == 0;
    const std::size_t d = prefix ? 1 : edit_distance(word, c);
    if (d < best_distance) best = c, best_distance = d;
  }
  return best;
}

bool Settings::enabled(const std::string& code) const {
  bool on = true;  // every rule runs unless a config or the command line says otherwise
  for (const auto& layer : selection) {
    auto any = [&](const std::vector<std::string>& list) {
      return std::any_of(list.begin(), list.end(), [&](const std::string& s) { return selector_matches(s, code); });
    };
    if (layer.select) on = any(*layer.select);
    if (any(layer.extend_select)) on = true;
    if (any(layer.ignore)) on = false;
  }
  return on;
}

Severity Settings::severity_of(const std::string& code, Severity default_severity) const {
  std::size_t best = 0;
  Severity out = default_severity;
  for (const auto& [selector, severity] : severity) {
    if (!selector_matches(selector, code)) continue;
    // A code or rule name beats a prefix; a longer prefix beats a shorter one; ALL is the weakest.
    const std::size_t strength = selector == "ALL" ? 1 : selector.size() + 1;
    if (strength >= best) best = strength, out = severity;
  }
  return out;
}

bool Settings::ignored_in(const std::string& code, const std::string& abs_path) const {
  for (const auto& p : per_file_ignores) {
    if (!std::any_of(p.codes.begin(), p.codes.end(), [&](const std::string& s) { return selector_matches(s, code); }))
      continue;
    if (p.pattern.matches(abs_path)) return true;
  }
  return false;
}

bool Settings::excluded(const std::string& abs_path) const {
  return std::any_of(exclude.begin(), exclude.end(), [&](const PathPattern& p) { return p.matches(abs_path); });
}

}  // namespace trl
