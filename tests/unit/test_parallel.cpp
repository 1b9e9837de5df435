// parallel_for: every index once, on any number of threads, and an exception from any thread
// reaches the caller.
#include <atomic>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <thread>
#include <vector>

#include "analyzer/util/parallel.hpp"

using namespace trl;

TEST_CASE("parallel_for: every index exactly once, whatever the thread count", "[parallel]") {
  for (unsigned threads : {0u, 1u, 2u, 3u, 8u})
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
      std::vector<std::atomic<int>> seen(n);
      parallel_for(n, threads, [&](std::size_t i) { ++seen[i]; });
      for (std::size_t i = 0; i < n; ++i) CHECK(seen[i].load() == 1);
    }
}

TEST_CASE("parallel_for: an exception on a helper thread reaches the caller", "[parallel]") {
  // Every odd index throws, and each thread waits until all have started: the helpers meet
  // exceptions too, not only the calling thread. Before, an exception leaving a helper ended the
  // process (std::terminate).
  for (int round = 0; round < 20; ++round) {
    std::atomic<unsigned> started{0};
    std::atomic<int> done{0};
    auto work = [&](std::size_t i) {
      if (i < 4) {
        ++started;
        while (started.load() < 4) std::this_thread::yield();
      }
      if (i % 2 == 1) throw std::runtime_error("index " + std::to_string(i));
      ++done;
    };
    CHECK_THROWS_AS(parallel_for(64, 4, work), std::runtime_error);
    CHECK(done.load() <= 32);
  }
}

TEST_CASE("parallel_for: the other threads finish their share after one throws", "[parallel]") {
  std::vector<std::atomic<int>> seen(200);
  auto work = [&](std::size_t i) {
    if (i == 0) throw std::runtime_error("first");
    ++seen[i];
  };
  CHECK_THROWS_WITH(parallel_for(seen.size(), 2, work), "first");
  // The thread that threw stops; the other takes every index left.
  for (std::size_t i = 1; i < seen.size(); ++i) CHECK(seen[i].load() <= 1);
  int total = 0;
  for (std::size_t i = 1; i < seen.size(); ++i) total += seen[i].load();
  CHECK(total == static_cast<int>(seen.size()) - 1);
}
