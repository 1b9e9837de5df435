#include "analyzer/util/parallel.hpp"

#include <condition_variable>
#include <deque>

#include "analyzer/util/memory.hpp"

namespace trl {

// The helper threads of the process. Parked helpers wait for a group's call; a call asked for
// when none is parked starts a helper. Never destroyed: its threads outlive the static
// destructors (they are parked then, as every group has been waited for).
class WorkerPool {
 public:
  static WorkerPool& get() {
    static WorkerPool* pool = new WorkerPool;
    return *pool;
  }

  // Never throws: out of memory or threads, fewer calls (or none) are asked for, and the owner
  // does the work itself (FolderWalk asks from inside a helper's call, which must not throw).
  void add(HelperGroup& group, unsigned count) noexcept {
    if (count == 0) return;
    std::unique_lock lock(mutex_);
    if (group.pending_ == 0) {
      try {
        asked_.push_back(&group);
      } catch (...) {
        return;
      }
    }
    group.pending_ += count;
    waiting_calls_ += count;
    // Helpers for the calls that the parked ones, and those starting, do not cover.
    while (waiting_calls_ > parked_ + starting_) {
      try {
        std::thread([this] { serve(); }).detach();
        ++started_;
        ++starting_;
      } catch (...) {
        break;  // no more threads (or memory) to be had: the owner withdraws the calls nobody begins
      }
    }
    lock.unlock();
    for (unsigned k = 0; k < count; ++k) call_.notify_one();
  }

  unsigned wait(HelperGroup& group) {
    std::unique_lock lock(mutex_);
    const unsigned withdrawn = group.pending_;
    if (withdrawn > 0) {
      std::erase(asked_, &group);
      waiting_calls_ -= withdrawn;
      group.pending_ = 0;
    }
    returned_.wait(lock, [&] { return group.running_ == 0; });
    return withdrawn;
  }

  std::size_t started() {
    const std::lock_guard lock(mutex_);
    return started_;
  }

 private:
  [[noreturn]] void serve() {
    prefer_huge_pages_here();
    std::unique_lock lock(mutex_);
    --starting_;
    for (;;) {
      ++parked_;
      call_.wait(lock, [&] { return !asked_.empty(); });
      --parked_;
      HelperGroup* group = asked_.front();
      if (--group->pending_ == 0) asked_.pop_front();
      --waiting_calls_;
      ++group->running_;
      lock.unlock();
      group->fn_();
      lock.lock();
      if (--group->running_ == 0) returned_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable call_;      // a call was asked for
  std::condition_variable returned_;  // a group's last begun call returned
  std::deque<HelperGroup*> asked_;    // groups with calls not begun, oldest first
  unsigned parked_ = 0;               // helpers waiting for a call
  unsigned waiting_calls_ = 0;        // calls asked for and not begun, over all groups
  unsigned starting_ = 0;             // helpers started and not yet parked
  std::size_t started_ = 0;
};

void HelperGroup::add(unsigned count) noexcept {
  WorkerPool::get().add(*this, count);
}

unsigned HelperGroup::wait() {
  return WorkerPool::get().wait(*this);
}

std::size_t pool_threads_started() {
  return WorkerPool::get().started();
}

}  // namespace trl
