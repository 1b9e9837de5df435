// The knowledge embedded at build time: the blob tools/knowledge_gen.cpp wrote from
// rules/knowledge/*.yaml (generated/knowledge_blob.cpp), decoded once on first use.
#include "analyzer/knowledge/knowledge.hpp"

namespace trl::knowledge {
std::string_view embedded_blob();
}

namespace trl {

std::string_view Knowledge::embedded_blob() {
  return knowledge::embedded_blob();
}

std::uint64_t Knowledge::embedded_version() {
  static const std::uint64_t version = [] {
    std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a: small input, computed once
    for (unsigned char c : knowledge::embedded_blob()) h = (h ^ c) * 0x100000001b3ull;
    return h;
  }();
  return version;
}

const Knowledge& Knowledge::get() {
  static const Knowledge k = from_blob(knowledge::embedded_blob());
  return k;
}

}  // namespace trl
