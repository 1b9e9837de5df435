#include "tests/fuzz/fuzz_common.hpp"

#include <set>
#include <vector>

#include "analyzer/cache/facts_codec.hpp"
#include "analyzer/discover/discover.hpp"

namespace trl::fuzz {

namespace {

std::string clean_path(std::string_view raw, std::size_t index) {
  std::string out;
  for (char c : raw) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '/') out.push_back(c);
    if (out.size() >= 64) break;
  }
  // No empty, `.` or `..` segments: the path must name a file under the root.
  std::string joined;
  std::size_t start = 0;
  while (start <= out.size()) {
    std::size_t slash = out.find('/', start);
    std::string seg = out.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (!seg.empty() && seg != "." && seg != "..") joined += (joined.empty() ? "" : "/") + seg;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (joined.empty()) joined = "file" + std::to_string(index) + ".py";
  return joined;
}

}  // namespace

Project project_from_input(std::string_view input) {
  Project project;
  project.root = "/fuzz-root";
  struct Chunk {
    std::string path;
    std::string_view text;
  };
  std::vector<Chunk> chunks;
  std::string path = "train.py";
  std::size_t body = 0;  // where the current file's text starts
  for (std::size_t pos = 0; pos < input.size() && chunks.size() < 7;) {
    std::size_t nl = input.find('\n', pos);
    std::size_t next = nl == std::string_view::npos ? input.size() : nl + 1;
    if (input.compare(pos, 4, "=== ") == 0) {
      if (pos > 0) chunks.push_back({path, input.substr(body, pos - body)});
      std::size_t line_end = nl == std::string_view::npos ? input.size() : nl;
      path = clean_path(input.substr(pos + 4, line_end - pos - 4), chunks.size());
      body = next;
    }
    pos = next;
  }
  chunks.push_back({path, input.substr(std::min(body, input.size()))});
  std::set<std::string> seen;
  for (auto& c : chunks) {
    if (c.path.empty() || !seen.insert(c.path).second) continue;
    std::string name = c.path.substr(c.path.rfind('/') == std::string::npos ? 0 : c.path.rfind('/') + 1);
    FileKind kind = classify(name, c.text.substr(0, 256));
    add_file_from_text(project, c.path, std::string(c.text), kind);
  }
  return project;
}

void check_facts_codec(const FileFacts& facts, std::string_view raw) {
  const std::string data = cache::encode_facts(facts);
  FileFacts decoded;
  if (!cache::decode_facts(data, 3, decoded) || cache::encode_facts(decoded) != data) __builtin_trap();
  FileFacts any;
  cache::decode_facts(raw, 3, any);
}

}  // namespace trl::fuzz
