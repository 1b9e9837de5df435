// Work spread over threads, for the passes over every file.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace trl {

// A thread count as the options give it: 0 is one per core.
inline unsigned resolve_threads(unsigned threads) {
  return threads ? threads : std::max(1u, std::thread::hardware_concurrency());
}

// Runs `work(i)` for i in [0, n) on `threads` threads (0: one per core), the calling thread
// one of them (starting a thread is not free: a tenth of a millisecond on a small repository's
// run). A thread that cannot be started leaves its share to the others.
template <typename Work>
void parallel_for(std::size_t n, unsigned threads, Work&& work) {
  threads = resolve_threads(threads);
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(n, 1)));
  std::atomic<std::size_t> next{0};
  // The first exception any thread meets is rethrown to the caller once every thread is done
  // (an exception leaving a helper thread would end the process); the others go on with their
  // share, so a running thread is never abandoned.
  std::mutex error_lock;
  std::exception_ptr error;
  auto loop = [&] {
    try {
      for (std::size_t i = next++; i < n; i = next++) work(i);
    } catch (...) {
      const std::lock_guard<std::mutex> hold(error_lock);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> helpers;
  try {
    helpers.reserve(threads - 1);
    for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(loop);
  } catch (const std::exception&) {
    // No more threads to be had: the ones started and the caller do the work.
  }
  loop();
  for (auto& t : helpers) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace trl
