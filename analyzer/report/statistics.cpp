// `--statistics`: how many findings each code has, most frequent first, like ruff:
//   COUNT  CODE    [*] name      ([*]: every finding of the code has a safe fix)
// With a JSON format, an array of {code, name, count, fixable}.
#include <algorithm>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>

#include "analyzer/report/formatters.hpp"

namespace trl {

namespace {

struct Row {
  std::string code;
  std::string name;
  std::size_t count = 0;
  bool fixable = true;
};

}  // namespace

void print_statistics(std::ostream& out, const std::vector<Diagnostic>& diags, bool json) {
  std::map<std::string, Row> by_code;
  for (const auto& d : diags) {
    Row& r = by_code[d.code];
    r.code = d.code;
    r.name = d.name;
    ++r.count;
    bool safe = std::any_of(d.fixes.begin(), d.fixes.end(), [](const Fix& f) { return f.safe; });
    r.fixable = r.fixable && safe;
  }
  std::vector<Row> rows;
  rows.reserve(by_code.size());
  for (auto& [code, row] : by_code) rows.push_back(row);
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.count > b.count; });
  if (json) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const auto& r : rows)
      all.push_back({{"code", r.code}, {"name", r.name}, {"count", r.count}, {"fixable", r.fixable}});
    out << all.dump(2) << '\n';
    return;
  }
  std::size_t count_width = 1, code_width = 1;
  for (const auto& r : rows) {
    count_width = std::max(count_width, std::to_string(r.count).size());
    code_width = std::max(code_width, r.code.size());
  }
  for (const auto& r : rows) {
    out << std::setw(static_cast<int>(count_width)) << std::right << r.count << '\t'
        << std::setw(static_cast<int>(code_width)) << std::left << r.code << '\t' << (r.fixable ? "[*] " : "[ ] ")
        << r.name << '\n';
  }
}

}  // namespace trl
