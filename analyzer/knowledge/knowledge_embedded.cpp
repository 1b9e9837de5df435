// The knowledge embedded at build time: the blob tools/knowledge_gen.cpp wrote from
// rules/knowledge/*.yaml (generated/knowledge_blob.cpp), decoded once on first use.
#include "analyzer/knowledge/knowledge.hpp"

namespace trl::knowledge {
std::string_view embedded_blob();
std::uint64_t embedded_blob_fingerprint();
}  // namespace trl::knowledge

namespace trl {

std::string_view Knowledge::embedded_blob() {
  return knowledge::embedded_blob();
}

// Every run asks for it (the result cache's key): hashing the blob there took 0.3 ms of each
// start-up.
std::uint64_t Knowledge::embedded_version() {
  return knowledge::embedded_blob_fingerprint();
}

const Knowledge& Knowledge::get() {
  static const Knowledge k = from_blob(knowledge::embedded_blob());
  return k;
}

}  // namespace trl
