// The persistent thread pool: workers spin briefly, then sleep on a condition variable between
// jobs; a job is one (count, fn) pair handed out in chunks, and the caller takes chunks like the
// workers.
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

} // namespace

struct ThreadPool::State {
  std::mutex submit; // one job at a time
  std::mutex m;
  std::condition_variable wake, done;
  std::vector<std::thread> workers;
  std::atomic<std::uint64_t> generation{0}; // bumped per job; workers run when it changes
  bool stop = false;
  // The current job. Items are handed out in chunks from `next`, so a thread that the OS
  // deschedules (the cores are shared) holds up one chunk, not a fixed share of the job; the
  // chunks shrink as the job nears its end (chunk_at), so the threads also finish together.
  const RangeFn* fn = nullptr;
  std::int64_t count = 0, min_chunk = 1;
  std::atomic<std::int64_t> next{0};
  int parts = 0;
  std::atomic<int> pending{0};
  std::exception_ptr error;

  // A quarter of a thread's share of what is left, at least count / (16 x parts) items.
  std::int64_t chunk_at(std::int64_t b) const {
    const std::int64_t share = 4 * static_cast<std::int64_t>(parts);
    return std::max(min_chunk, (count - b + share - 1) / share);
  }

  void run_chunks() {
    t_inside_job = true;
    std::int64_t b = next.load(std::memory_order_relaxed);
    while (b < count) {
      const std::int64_t e = std::min(b + chunk_at(b), count);
      if (!next.compare_exchange_weak(b, e, std::memory_order_relaxed))
        continue; // b is now the current value of next
      try {
        (*fn)(b, e);
      } catch (...) {
        next.store(count, std::memory_order_relaxed); // start no more chunks
        std::lock_guard lock(m);
        if (!error)
          error = std::current_exception();
      }
      b = next.load(std::memory_order_relaxed);
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
      run_chunks();
      std::lock_guard lock(m);
      if (--pending == 0)
        done.notify_one();
    }
  }
};

ThreadPool::ThreadPool(int num_threads)
    : num_threads_(std::clamp(num_threads, 1, kMaxThreads)), state_(std::make_unique<State>()) {
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
  State& s = *state_;
  std::lock_guard submit(s.submit);
  {
    std::lock_guard lock(s.m);
    s.fn = &fn;
    s.count = count;
    s.parts = static_cast<int>(std::min<std::int64_t>(count, num_threads_));
    // Chunks of a quarter of a thread's share at first: few enough that neighbouring items (tiles
    // sharing an A panel) stay together; down to 1/16 of a share at the end, so that no thread is
    // left with a long chunk while the others wait.
    s.min_chunk = std::max<std::int64_t>(1, count / (16 * s.parts));
    s.next.store(0, std::memory_order_relaxed);
    s.pending = s.parts - 1;
    s.error = nullptr;
    s.generation.fetch_add(1, std::memory_order_release);
  }
  s.wake.notify_all();
  s.run_chunks();
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
