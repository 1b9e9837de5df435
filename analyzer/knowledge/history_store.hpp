// The storage behind Knowledge's release history (history_*.yaml): the decoded tables, the binary
// form they are decoded from on first use, and the classes Knowledge::at() has built.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "analyzer/knowledge/knowledge.hpp"

namespace trl {

struct Knowledge::HistoryStore {
  std::once_flag decoded;
  std::string blob;  // the binary form until decoded; empty when loaded from YAML
  std::map<std::string, LibraryHistory, std::less<>> libraries;
  std::map<std::string, const ClassHistory*, std::less<>> by_class;
  std::mutex built_mutex;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<ClassInfo>> built;  // (class, version)
};

// Where a history entry was read: "file@vFROM..vTO" ("file@vFROM" for one release).
inline std::string range_source(const std::string& file, const std::string& from, const std::string& to) {
  return file + "@v" + from + (from == to ? "" : "..v" + to);
}
// The file part of such a source.
inline std::string source_file(const std::string& source) {
  return source.substr(0, source.find('@'));
}

// The binary form of the histories, and back (knowledge.cpp). decode throws bin::BinaryFormatError.
std::string encode_history(const std::map<std::string, LibraryHistory, std::less<>>& libraries);
std::map<std::string, LibraryHistory, std::less<>> decode_history(std::string_view blob);

}  // namespace trl
