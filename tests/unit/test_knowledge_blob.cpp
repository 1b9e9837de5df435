// The embedded knowledge blob (written at build time by tools/knowledge_gen.cpp) against the
// YAML files it was made from, and the decoder against damaged blobs.
#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

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

TEST_CASE("knowledge: the version the build wrote is the fingerprint of the embedded blob", "[knowledge]") {
  CHECK(Knowledge::embedded_version() == Knowledge::fingerprint(Knowledge::embedded_blob()));
  CHECK(Knowledge::fingerprint("") == 0xcbf29ce484222325ull);
  CHECK(Knowledge::fingerprint("a") != Knowledge::fingerprint("b"));
}

namespace {

// field() as the knowledge defines it, written out plainly: breadth-first over the bases, the
// class itself first, the first 32 classes met.
const FieldInfo* field_by_search(const Knowledge& k, const ClassInfo& cls, std::string_view name) {
  std::vector<const ClassInfo*> queue{&cls};
  for (std::size_t i = 0; i < queue.size() && i < 32; ++i) {
    auto it = queue[i]->fields.find(name);
    if (it != queue[i]->fields.end()) return &it->second;
    for (const auto& b : queue[i]->bases)
      if (const ClassInfo* base = k.find(b)) queue.push_back(base);
  }
  return nullptr;
}

}  // namespace

TEST_CASE("knowledge: field() finds what a search of the bases finds, for every class and name", "[knowledge]") {
  // field() answers from an index built when the knowledge is loaded; it must agree with the
  // search it replaces on every class, for every field name of any class and for unknown names.
  const Knowledge& k = Knowledge::get();
  std::set<std::string> names{"", "no_such_field", "learning_rat"};
  for (const auto& [n, cls] : k.classes())
    for (const auto& [f, info] : cls.fields) names.insert(f);
  std::size_t found = 0;
  for (const auto& [n, cls] : k.classes())
    for (const auto& name : names) {
      const FieldInfo* expected = field_by_search(k, cls, name);
      CHECK(k.field(cls, name) == expected);
      found += expected ? 1 : 0;
    }
  CHECK(found > 1000);  // inherited fields are found, not only declared ones
  // A class that is not one of the knowledge's own (a copy) is searched the same way.
  const ClassInfo copy = *k.find("SFTConfig");
  CHECK(k.field(copy, "learning_rate") == &copy.fields.at("learning_rate"));  // its own declaration
  CHECK(k.field(copy, "per_device_train_batch_size") == field_by_search(k, copy, "per_device_train_batch_size"));
  CHECK(k.field(copy, "per_device_train_batch_size") != nullptr);
  CHECK(k.field(copy, "no_such_field") == nullptr);
}

TEST_CASE("knowledge: field lookup order with overrides, a diamond, a cycle and an unknown base", "[knowledge]") {
  // D derives from B and C, both from A; C redeclares `x`; A and B derive from each other
  // through Z (a cycle); E names a base the knowledge does not have.
  const std::string yaml = R"(classes:
  A:
    package: trl
    bases: [Z]
    fields:
      x: {type: int, default: 1}
      y: {type: int, default: 1}
  Z:
    package: trl
    bases: [B]
    fields:
      z: {type: int, default: 26}
  B:
    package: trl
    bases: [A]
    fields:
      b: {type: int, default: 2}
  C:
    package: trl
    bases: [A]
    fields:
      x: {type: int, default: 3}
  D:
    package: trl
    bases: [B, C]
    fields:
      d: {type: int, default: 4}
      y: {type: int, default: 4}
  E:
    package: trl
    bases: [NotKnown, C]
    fields: {}
)";
  const Knowledge k = Knowledge::from_texts({{"fields_test.yaml", yaml}});
  const ClassInfo& d = *k.find("D");
  auto value = [&](const ClassInfo& cls, std::string_view name) {
    const FieldInfo* f = k.field(cls, name);
    return f ? f->default_value.i : -1;
  };
  CHECK(value(d, "y") == 4);   // its own declaration wins over A's
  CHECK(value(d, "x") == 3);   // C is met before A (breadth-first): C's `x`
  CHECK(value(d, "b") == 2);   // from B
  CHECK(value(d, "z") == 26);  // through the cycle A -> Z -> B -> A, which ends
  CHECK(value(d, "missing") == -1);
  CHECK(value(*k.find("B"), "x") == 1);  // B sees A's `x`, not C's
  CHECK(value(*k.find("E"), "x") == 3);  // the unknown base is skipped
  for (const auto& [n, cls] : k.classes())
    for (std::string_view name : {"x", "y", "z", "b", "d", "missing"})
      CHECK(k.field(cls, name) == field_by_search(k, cls, name));
  // Moving the knowledge keeps its index valid (the classes stay where they are): an index
  // filled before the move, its source gone, answers with the moved classes' fields (under the
  // sanitizers, a pointer into the source's storage would be a use after free here).
  std::optional<Knowledge> target;
  {
    Knowledge source = Knowledge::from_texts({{"fields_test.yaml", yaml}});
    REQUIRE(source.field(*source.find("D"), "x"));
    target.emplace(std::move(source));
  }
  const FieldInfo* x = target->field(*target->find("D"), "x");
  REQUIRE(x);
  CHECK(x == &target->find("C")->fields.at("x"));
  CHECK(x->default_value.i == 3);
}

TEST_CASE("knowledge: threads asking for fields at the same time get the same answers", "[knowledge]") {
  // A class's index is filled on the first question about it, which the run builder's threads
  // may ask together.
  const Knowledge fresh = Knowledge::from_blob(Knowledge::embedded_blob());
  std::vector<std::pair<const ClassInfo*, std::string>> questions;
  for (const auto& [n, cls] : fresh.classes())
    for (const auto& [f, info] : cls.fields) questions.emplace_back(&cls, f);
  std::vector<std::vector<const FieldInfo*>> answers(4);
  std::vector<std::thread> threads;
  std::atomic<std::size_t> ready{0};
  for (std::size_t t = 0; t < answers.size(); ++t)
    threads.emplace_back([&, t] {
      // All start together, so that first questions about a class meet.
      ++ready;
      while (ready.load() < answers.size()) std::this_thread::yield();
      for (const auto& [cls, name] : questions)
        for (const auto& [n, other] : fresh.classes()) answers[t].push_back(fresh.field(other, name));
    });
  for (auto& t : threads) t.join();
  std::vector<const FieldInfo*> expected;
  for (const auto& [cls, name] : questions)
    for (const auto& [n, other] : fresh.classes()) expected.push_back(field_by_search(fresh, other, name));
  for (const auto& a : answers) CHECK(a == expected);
}
