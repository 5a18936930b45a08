// The persistent thread pool: workers spin briefly, then sleep on a condition variable between
// jobs; a job is one (count, fn) pair split into a share per thread (the caller included), each
// run in chunks and stolen from when its owner falls behind. Hand-written: Debian packages
// oneTBB, whose task arena steals work too, but a generated kernel's few parallel loops need
// one fork and join each, not a task scheduler, and libtbb would become a dependency of every
// kernel built with TileKit.
#include <tilekit/cpu/thread_pool.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tk::cpu {
namespace {

// Set while a thread runs a range, so that a nested parallel_for runs inline instead of waiting
// for workers that are busy running its parent.
thread_local bool t_inside_job = false;
// How long a thread spins before it sleeps: a worker waiting for the next job, the caller for
// the workers to finish. A generated run_cpu makes several parallel_for calls in a row (packing,
// then the tiles), and on this machine a sleeping worker takes tens of microseconds to wake;
// spinning this long costs at most that much CPU per job, and is what let a 256^3 matmul gain
// from a second thread at all (0.55x OpenBLAS without it, 1.07x with it).
constexpr std::chrono::microseconds kSpin{50};

// Spins (x86 `pause` between checks) until ready() or until kSpin has passed.
template <class Ready>
void spin_until(Ready ready) {
  const auto end = std::chrono::steady_clock::now() + kSpin;
  while (!ready() && std::chrono::steady_clock::now() < end)
    for (int i = 0; i < 16; ++i) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
}

// A thread's share of the current job: the unclaimed items [begin, end) in one word (begin in
// the high half), so that its owner taking from the front and a thief taking from the back
// claim items with one compare-and-swap each. On a cache line of its own.
struct alignas(64) Share {
  std::atomic<std::uint64_t> range{0};
};
constexpr std::uint64_t pack_range(std::int64_t b, std::int64_t e) {
  return static_cast<std::uint64_t>(b) << 32 | static_cast<std::uint64_t>(e);
}
constexpr std::int64_t range_begin(std::uint64_t r) {
  return static_cast<std::int64_t>(r >> 32);
}
constexpr std::int64_t range_end(std::uint64_t r) {
  return static_cast<std::int64_t>(r & 0xffffffffu);
}
// The most items one job holds (a share's bounds are 32 bits); parallel_for runs a larger count
// as several jobs.
constexpr std::int64_t kMaxJob = std::int64_t{1} << 31;

} // namespace

struct ThreadPool::State {
  explicit State(int threads) : shares(new Share[static_cast<std::size_t>(threads)]) {}

  std::mutex submit; // one job at a time
  std::mutex m;
  std::condition_variable wake, done;
  std::vector<std::thread> workers;
  std::atomic<std::uint64_t> generation{0}; // bumped per job; workers run when it changes
  bool stop = false;
  // The current job. Thread p (the caller is 0) owns the p-th of `parts` equal consecutive
  // shares and runs it front to back in chunks; a thread whose share is empty steals the back
  // half of the largest share left, and runs that the same way. So a thread that the OS
  // deschedules (the cores are shared) holds up one chunk, and, when nobody stalls, each thread
  // runs the same items in every job of the same size: the rows of A it packed, the tiles of C
  // it wrote last time, are still in its own caches.
  const RangeFn* fn = nullptr;
  std::int64_t min_chunk = 1;
  int parts = 0;
  std::unique_ptr<Share[]> shares;
  std::atomic<bool> failed{false};
  std::atomic<int> pending{0};
  std::exception_ptr error;

  // Claims the front chunk of `self`'s share: a quarter of what is left of it, at least
  // min_chunk items.
  bool take_own(int self, std::int64_t& b, std::int64_t& e) {
    std::atomic<std::uint64_t>& share = shares[static_cast<std::size_t>(self)].range;
    std::uint64_t r = share.load(std::memory_order_acquire);
    for (;;) {
      b = range_begin(r);
      const std::int64_t left = range_end(r) - b;
      if (left <= 0)
        return false;
      e = b + std::min(left, std::max(min_chunk, (left + 3) / 4));
      if (share.compare_exchange_weak(r, pack_range(e, range_end(r)), std::memory_order_acq_rel))
        return true;
    }
  }

  // Moves the back half of the largest other share into `self`'s (empty) share.
  bool steal(int self) {
    for (;;) {
      int victim = -1;
      std::uint64_t vr = 0;
      std::int64_t most = 0;
      for (int p = 0; p < parts; ++p) {
        const std::uint64_t r =
            shares[static_cast<std::size_t>(p)].range.load(std::memory_order_acquire);
        if (p != self && range_end(r) - range_begin(r) > most) {
          victim = p;
          vr = r;
          most = range_end(r) - range_begin(r);
        }
      }
      if (victim < 0)
        return false; // every item is claimed
      const std::int64_t mid = range_end(vr) - (most + 1) / 2;
      if (shares[static_cast<std::size_t>(victim)].range.compare_exchange_strong(
              vr, pack_range(range_begin(vr), mid), std::memory_order_acq_rel)) {
        shares[static_cast<std::size_t>(self)].range.store(pack_range(mid, range_end(vr)),
                                                           std::memory_order_release);
        return true;
      }
    }
  }

  void run_chunks(int self) {
    t_inside_job = true;
    std::int64_t b = 0, e = 0;
    while (!failed.load(std::memory_order_relaxed)) {
      if (!take_own(self, b, e)) {
        if (steal(self))
          continue;
        break; // every item is claimed
      }
      try {
        (*fn)(b, e);
      } catch (...) {
        failed.store(true, std::memory_order_relaxed); // start no more chunks
        std::lock_guard lock(m);
        if (!error)
          error = std::current_exception();
      }
    }
    t_inside_job = false;
  }

  void worker_loop(int index) {
    std::uint64_t seen = 0;
    for (;;) {
      spin_until([&] { return generation.load(std::memory_order_acquire) != seen; });
      {
        std::unique_lock lock(m);
        wake.wait(lock, [&] { return stop || generation != seen; });
        if (stop)
          return;
        seen = generation;
        if (index >= parts) // this job has fewer ranges than threads
          continue;
      }
      run_chunks(index);
      std::lock_guard lock(m);
      if (--pending == 0)
        done.notify_one();
    }
  }
};

ThreadPool::ThreadPool(int num_threads)
    : num_threads_(std::clamp(num_threads, 1, kMaxThreads)),
      state_(std::make_unique<State>(num_threads_)) {
  for (int i = 1; i < num_threads_; ++i)
    state_->workers.emplace_back([s = state_.get(), i] { s->worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(state_->m);
    state_->stop = true;
  }
  state_->wake.notify_all();
  for (auto& t : state_->workers)
    t.join();
}

void ThreadPool::parallel_for(std::int64_t count, RangeFn fn) {
  if (count <= 0)
    return;
  if (num_threads_ == 1 || count == 1 || t_inside_job) {
    fn(0, count);
    return;
  }
  if (count > kMaxJob) {
    for (std::int64_t base = 0; base < count; base += kMaxJob)
      parallel_for(std::min(kMaxJob, count - base),
                   [&](std::int64_t b, std::int64_t e) { fn(base + b, base + e); });
    return;
  }
  State& s = *state_;
  std::lock_guard submit(s.submit);
  {
    std::lock_guard lock(s.m);
    s.fn = &fn;
    s.parts = static_cast<int>(std::min<std::int64_t>(count, num_threads_));
    for (int p = 0; p < num_threads_; ++p)
      s.shares[static_cast<std::size_t>(p)].range.store(
          p < s.parts ? pack_range(count * p / s.parts, count * (p + 1) / s.parts) : 0,
          std::memory_order_relaxed);
    // Chunks of a quarter of what is left of a share: few enough that neighbouring items (tiles
    // sharing an A panel) stay together; at least 1/16 of a share, so that a job of many small
    // items is not claimed one at a time at the end.
    s.min_chunk = std::max<std::int64_t>(1, count / (16 * s.parts));
    s.failed.store(false, std::memory_order_relaxed);
    s.pending = s.parts - 1;
    s.error = nullptr;
    s.generation.fetch_add(1, std::memory_order_release);
  }
  s.wake.notify_all();
  s.run_chunks(0);
  spin_until([&] { return s.pending.load(std::memory_order_acquire) == 0; });
  std::unique_lock lock(s.m);
  s.done.wait(lock, [&] { return s.pending == 0; });
  s.fn = nullptr;
  if (s.error)
    std::rethrow_exception(std::exchange(s.error, nullptr));
}

namespace {

int threads_from_environment() {
  if (const char* env = std::getenv("TILEKIT_NUM_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n > 0)
      return static_cast<int>(std::min<long>(n, kMaxThreads));
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// The default pool, replaced by set_num_threads. Read on every parallel_for, so the common path
// is one acquire load; destroyed (its workers joined) at exit, as a function-local static was.
std::mutex g_default_m;
std::unique_ptr<ThreadPool> g_default_owner;
std::atomic<ThreadPool*> g_default{nullptr};

} // namespace

ThreadPool& default_pool() {
  if (ThreadPool* p = g_default.load(std::memory_order_acquire))
    return *p;
  std::lock_guard lock(g_default_m);
  if (!g_default_owner) {
    g_default_owner = std::make_unique<ThreadPool>(threads_from_environment());
    g_default.store(g_default_owner.get(), std::memory_order_release);
  }
  return *g_default_owner;
}

void set_num_threads(int num_threads) {
  std::lock_guard lock(g_default_m);
  const int n = std::clamp(num_threads, 1, kMaxThreads);
  if (g_default_owner && g_default_owner->num_threads() == n)
    return;
  auto pool = std::make_unique<ThreadPool>(n);
  g_default.store(pool.get(), std::memory_order_release);
  std::swap(pool, g_default_owner); // the old pool's workers are joined here
}

} // namespace tk::cpu
