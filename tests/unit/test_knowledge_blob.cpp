// The embedded knowledge blob (written at build time by tools/knowledge_gen.cpp) against the
// YAML files it was made from, and the decoder against damaged blobs.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analyzer/knowledge/knowledge.hpp"

using namespace trl;
namespace fs = std::filesystem;

namespace {

Knowledge from_source_yaml() {
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(fs::path(TRL_LINT_SOURCE_DIR) / "rules/knowledge"))
    if (e.path().extension() == ".yaml") paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    files.emplace_back(p.filename().string(), s.str());
  }
  return Knowledge::from_texts(files);
}

}  // namespace

TEST_CASE("knowledge: embedded blob equals the YAML files", "[knowledge]") {
  // A stale or lossy blob would make trl-lint disagree with the cited facts.
  const Knowledge yaml = from_source_yaml();
  CHECK(yaml.to_blob() == std::string(Knowledge::embedded_blob()));
  const Knowledge& k = Knowledge::get();
  REQUIRE(k.classes().size() == yaml.classes().size());
  const ClassInfo* sft = k.find("SFTConfig");
  REQUIRE(sft);
  const FieldInfo* lr = k.field(*sft, "learning_rate");
  REQUIRE(lr);
  CHECK(lr->has_default);
  CHECK(lr->default_value.kind == Scalar::Kind::Float);
  CHECK(lr->default_value.f == 2.0e-05);
  CHECK_FALSE(lr->source.empty());
  const FieldInfo* mode = k.field(*sft, "truncation_mode");
  REQUIRE(mode);
  CHECK(mode->choices == std::vector<std::string>{"keep_end", "keep_start"});
  const FieldInfo* bf16 = k.field(*sft, "bf16");
  REQUIRE(bf16);
  CHECK(bf16->nullable);
  CHECK(bf16->default_value.kind == Scalar::Kind::Null);
  const AccelerateProfile* zero3 = k.accelerate_profile("zero3");
  REQUIRE(zero3);
  CHECK(zero3->values.at("zero_stage").i == 3);
  CHECK_FALSE(zero3->source.empty());
  CHECK(k.launch_flag("num_processes"));
}

TEST_CASE("knowledge: round trip through the blob is exact", "[knowledge]") {
  const std::string blob = Knowledge::get().to_blob();
  CHECK(Knowledge::from_blob(blob).to_blob() == blob);
}

TEST_CASE("knowledge: a damaged blob is refused, never read past its end", "[knowledge]") {
  const std::string blob(Knowledge::embedded_blob());
  CHECK_THROWS_AS(Knowledge::from_blob(""), std::runtime_error);
  CHECK_THROWS_AS(Knowledge::from_blob("not a blob at all"), std::runtime_error);
  for (std::size_t cut : {std::size_t{8}, std::size_t{9}, blob.size() / 3, blob.size() / 2, blob.size() - 1})
    CHECK_THROWS_AS(Knowledge::from_blob(std::string_view(blob).substr(0, cut)), std::runtime_error);
  CHECK_THROWS_AS(Knowledge::from_blob(blob + "x"), std::runtime_error);  // trailing bytes
  std::string huge = blob;
  huge[8] = '\xff';  // class count far beyond the data
  huge[9] = '\xff';
  huge[10] = '\xff';
  CHECK_THROWS_AS(Knowledge::from_blob(huge), std::runtime_error);
  CHECK(Knowledge::embedded_version() != 0);
}
