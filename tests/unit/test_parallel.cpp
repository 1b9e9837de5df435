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

TEST_CASE("parallel_for: the helper threads are kept for the next calls", "[parallel]") {
  // Each pass of a run used to start and join threads of its own (50-130 us each).
  parallel_for(100, 3, [](std::size_t) {});  // the pool has two helpers at least from here on
  const std::size_t started = pool_threads_started();
  CHECK(started >= 2);
  for (int round = 0; round < 50; ++round) {
    std::vector<std::atomic<int>> seen(100);
    parallel_for(seen.size(), 3, [&](std::size_t i) { ++seen[i]; });
    for (auto& s : seen) CHECK(s.load() == 1);
  }
  CHECK(pool_threads_started() == started);
}

TEST_CASE("parallel_for: a call from inside a call's work", "[parallel]") {
  std::vector<std::atomic<int>> seen(40 * 30);
  parallel_for(40, 4,
               [&](std::size_t outer) { parallel_for(30, 3, [&](std::size_t inner) { ++seen[outer * 30 + inner]; }); });
  for (auto& s : seen) CHECK(s.load() == 1);
}

TEST_CASE("HelperGroup: every call asked for is either begun and waited for, or withdrawn", "[parallel]") {
  for (int round = 0; round < 200; ++round) {
    std::atomic<unsigned> calls{0};
    unsigned withdrawn = 0;
    {
      HelperGroup group([&] { ++calls; });
      group.add(3);
      if (round % 2) std::this_thread::yield();
      withdrawn = group.wait();
      CHECK(group.wait() == 0);  // idempotent: nothing left to withdraw
    }
    CHECK(calls.load() + withdrawn == 3);
  }
}

TEST_CASE("Background: a value, an exception, and work no helper began", "[parallel]") {
  Background<int> value([] { return 42; });
  CHECK(value.valid());
  CHECK(value.get() == 42);
  CHECK_FALSE(value.valid());

  Background<void> fails([] { throw std::runtime_error("in the background"); });
  CHECK_THROWS_WITH(fails.get(), "in the background");

  // Not handed to a helper (as with --threads 1): get() runs it on the calling thread.
  std::thread::id ran_on;
  Background<bool> deferred(
      [&] {
        ran_on = std::this_thread::get_id();
        return true;
      },
      false);
  CHECK(deferred.get());
  CHECK(ran_on == std::this_thread::get_id());

  // Destroyed without get(): work a helper began is waited for; work not begun is dropped.
  for (int round = 0; round < 100; ++round) {
    std::atomic<int> state{0};
    {
      Background<void> dropped([&] {
        state = 1;
        std::this_thread::yield();
        state = 2;
      });
    }
    CHECK(state.load() != 1);
  }
}
