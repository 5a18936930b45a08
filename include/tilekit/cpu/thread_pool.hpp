// The persistent thread pool that generated CPU code spreads its parallel space over: a share of
// consecutive work items per thread (the caller included), the rest of a share stolen by
// whichever thread runs out first.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

namespace tk::cpu {

/// A non-owning reference to a callable `void(std::int64_t begin, std::int64_t end)`; cheaper
/// than std::function (no allocation) and keeps <functional> out of generated code.
class RangeFn {
public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, RangeFn>)
  RangeFn(F&& f) // NOLINT: implicit, so a lambda can be passed directly
      : obj_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, std::int64_t b, std::int64_t e) {
          (*static_cast<std::remove_reference_t<F>*>(o))(b, e);
        }) {}
  void operator()(std::int64_t begin, std::int64_t end) const { call_(obj_, begin, end); }

private:
  void* obj_;
  void (*call_)(void*, std::int64_t, std::int64_t);
};

inline constexpr int kMaxThreads = 1024;

class ThreadPool {
public:
  /// `num_threads` counts the calling thread: a pool of 1 runs everything inline. Clamped to
  /// [1, kMaxThreads].
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }

  /// Calls fn(begin, end) on disjoint, non-empty ranges that together cover [0, count) exactly
  /// once, and returns when all have finished. With parts = min(count, threads), thread p (the
  /// caller is thread 0) owns the share [count x p / parts, count x (p + 1) / parts) and runs it
  /// front to back, a quarter of what is left of it at a time (at least count / (16 x parts)
  /// items); a thread whose share is used up takes the back half of the largest share left and
  /// runs it the same way. So, unless a thread stalls, jobs of the same count give each thread
  /// the same items. A pool of one thread, or a nested call, makes the single call fn(0, count).
  /// If fn throws, no further ranges start, and the first exception is rethrown here
  /// once the running ones have finished. Called from inside fn (nested), it runs serially
  /// inline; called while another thread is using the pool, it waits its turn.
  void parallel_for(std::int64_t count, RangeFn fn);

private:
  struct State;
  int num_threads_;
  std::unique_ptr<State> state_;
};

/// The process-wide pool that generated code runs on: TILEKIT_NUM_THREADS threads if set to a
/// positive number, else std::thread::hardware_concurrency(). Created on first use.
ThreadPool& default_pool();

/// Replaces the default pool with one of `num_threads` threads (clamped to [1, kMaxThreads]),
/// like openblas_set_num_threads; nothing happens if it already has that many. Not while a
/// kernel runs on the default pool (its threads are joined and the pool freed).
void set_num_threads(int num_threads);

/// parallel_for on default_pool().
inline void parallel_for(std::int64_t count, RangeFn fn) {
  default_pool().parallel_for(count, fn);
}

} // namespace tk::cpu
