// Work spread over threads, for the passes over every file.
//
// The threads are kept: a process-wide pool starts helper threads the first time a pass asks for
// them and parks them between passes. A run over a small repository has about eight passes
// (walking the folders, reading, parsing, building the runs, judging them, decoding the
// knowledge...), and starting and joining a thread for each cost 50-130 us apiece, with the new
// thread's first allocations growing a malloc arena again, page by page.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>

namespace trl {

// A thread count as the options give it: 0 is one per core.
inline unsigned resolve_threads(unsigned threads) {
  return threads ? threads : std::max(1u, std::thread::hardware_concurrency());
}

class WorkerPool;

// Calls of one function on the pool's helper threads, which the owner waits for. `fn` must not
// throw (an exception leaving a helper thread would end the process).
class HelperGroup {
 public:
  explicit HelperGroup(std::function<void()> fn) : fn_(std::move(fn)) {}
  HelperGroup(const HelperGroup&) = delete;
  HelperGroup& operator=(const HelperGroup&) = delete;
  ~HelperGroup() { wait(); }

  // Asks for `count` more calls of fn, each on a parked helper (started when none is parked;
  // fewer when no thread or memory is to be had). Never throws. A call may begin any time before
  // wait() withdraws it: fn must be safe to call late (a loop over shared work that finds none
  // left returns at once).
  void add(unsigned count) noexcept;
  // Withdraws the calls no helper has begun, then waits until the begun ones return. Returns how
  // many were withdrawn (a caller that needs fn called runs it itself). Idempotent.
  unsigned wait();

 private:
  friend class WorkerPool;
  std::function<void()> fn_;
  unsigned pending_ = 0;  // asked for and not begun (guarded by the pool's lock)
  unsigned running_ = 0;  // begun and not returned (guarded by the pool's lock)
};

// The number of helper threads the process has started so far (they never end), for tests.
std::size_t pool_threads_started();

// Runs `work(i)` for i in [0, n) on `threads` threads (0: one per core), the calling thread one
// of them. A helper that cannot be started leaves its share to the others.
template <typename Work>
void parallel_for(std::size_t n, unsigned threads, Work&& work) {
  threads = resolve_threads(threads);
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(n, 1)));
  std::atomic<std::size_t> next{0};
  // The first exception any thread meets is rethrown to the caller once every thread is done;
  // the others go on with their share, so a running thread is never abandoned.
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
  if (threads > 1) {
    HelperGroup helpers(loop);
    helpers.add(threads - 1);
    loop();
    // A share no helper began (the caller's loop finished first or stopped at an exception, or no
    // thread could be started) is taken by the caller: every share goes on until the work runs
    // out or it meets an exception.
    for (unsigned k = helpers.wait(); k > 0; --k) loop();
  } else {
    loop();
  }
  if (error) std::rethrow_exception(error);
}

// `work()` on a helper thread while the caller goes on (with `on_helper` false, it waits for
// get(), as with --threads 1). get() waits for it, or runs it on the calling thread when no
// helper has begun it yet (so it never waits for a busy pool), and rethrows what it threw.
// Destroyed without get(), it waits for work that has begun and drops work that has not (as a
// deferred std::future would).
template <typename T>
class Background {
 public:
  Background() = default;
  template <typename Work>
  explicit Background(Work work, bool on_helper = true) : state_(std::make_unique<State>(std::move(work))) {
    if (on_helper) state_->group.add(1);
  }
  Background(Background&&) noexcept = default;
  Background& operator=(Background&& other) noexcept {
    if (state_) state_->group.wait();
    state_ = std::move(other.state_);
    return *this;
  }
  ~Background() {
    if (state_) state_->group.wait();
  }

  bool valid() const { return state_ != nullptr; }
  T get() {
    auto state = std::move(state_);
    state->group.wait();  // the call a helper began has returned; one not begun never will
    if (!state->called) state->call();
    if (state->error) std::rethrow_exception(state->error);
    if constexpr (!std::is_void_v<T>) return std::move(*state->value);
  }

 private:
  struct State {
    template <typename Work>
    explicit State(Work w) : work(std::move(w)), group([this] { call(); }) {}
    void call() noexcept {
      called = true;
      try {
        if constexpr (std::is_void_v<T>)
          work();
        else
          value.emplace(work());
      } catch (...) {
        error = std::current_exception();
      }
    }
    std::function<T()> work;
    std::optional<std::conditional_t<std::is_void_v<T>, bool, T>> value;
    std::exception_ptr error;
    bool called = false;  // by a helper (read after waiting for it) or by get()
    HelperGroup group;    // last: destroyed (waited for) before the fields its call writes
  };
  std::unique_ptr<State> state_;
};

}  // namespace trl
