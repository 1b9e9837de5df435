// Work spread over threads, for the passes over every file.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace trl {

// Runs `work(i)` for i in [0, n) on `threads` threads (0: one per core), the calling thread
// one of them (starting a thread is not free: a tenth of a millisecond on a small repository's
// run). A thread that cannot be started leaves its share to the others.
template <typename Work>
void parallel_for(std::size_t n, unsigned threads, Work&& work) {
  threads = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(n, 1)));
  std::atomic<std::size_t> next{0};
  auto loop = [&] {
    for (std::size_t i = next++; i < n; i = next++) work(i);
  };
  std::vector<std::thread> helpers;
  try {
    helpers.reserve(threads - 1);
    for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(loop);
  } catch (const std::exception&) {
    // No more threads to be had: the ones started and the caller do the work.
  }
  std::exception_ptr error;
  try {
    loop();
  } catch (...) {
    error = std::current_exception();  // the helpers finish first: a running thread is never abandoned
  }
  for (auto& t : helpers) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace trl
