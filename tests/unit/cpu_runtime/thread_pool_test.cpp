// The thread pool: every item exactly once, a share per thread, stealing, exceptions, nesting.
#include <tilekit/cpu/thread_pool.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <latch>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

class ThreadPoolTest : public ::testing::TestWithParam<int> {};

TEST_P(ThreadPoolTest, CoversEveryItemExactlyOnce) {
  tk::cpu::ThreadPool pool(GetParam());
  EXPECT_EQ(pool.num_threads(), GetParam());
  for (std::int64_t count : {0, 1, 7, 1000}) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(count));
    std::mutex m;
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    pool.parallel_for(count, [&](std::int64_t b, std::int64_t e) {
      {
        std::lock_guard lock(m);
        ranges.emplace_back(b, e);
      }
      for (std::int64_t i = b; i < e; ++i)
        hits[static_cast<std::size_t>(i)].fetch_add(1);
    });
    for (std::int64_t i = 0; i < count; ++i)
      ASSERT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << "count " << count << " item " << i;
    // Ranges tile [0, count) with non-empty ranges; one thread runs everything in one call.
    std::sort(ranges.begin(), ranges.end());
    std::int64_t next = 0;
    for (auto [b, e] : ranges) {
      EXPECT_EQ(b, next);
      EXPECT_GT(e, b);
      next = e;
    }
    EXPECT_EQ(next, count);
    if (GetParam() == 1 || count == 1) {
      EXPECT_EQ(ranges.size(), count ? 1u : 0u);
    }
  }
}

// Each thread's first range is the front quarter of its own share: thread p of n owns
// [1000 p / n, 1000 (p + 1) / n). Every thread holds its first range until all have one, so
// nobody can steal meanwhile.
TEST_P(ThreadPoolTest, EachThreadStartsWithTheFrontOfItsShare) {
  const int n = GetParam();
  tk::cpu::ThreadPool pool(n);
  std::latch all_here(n);
  std::mutex m;
  std::map<std::thread::id, std::pair<std::int64_t, std::int64_t>> first;
  pool.parallel_for(1000, [&](std::int64_t b, std::int64_t e) {
    bool is_first = false;
    {
      std::lock_guard lock(m);
      is_first = first.emplace(std::this_thread::get_id(), std::make_pair(b, e)).second;
    }
    if (is_first && n > 1)
      all_here.arrive_and_wait();
  });
  std::vector<std::pair<std::int64_t, std::int64_t>> got;
  for (auto& [id, r] : first)
    got.push_back(r);
  std::sort(got.begin(), got.end());
  std::vector<std::pair<std::int64_t, std::int64_t>> want;
  for (int p = 0; p < n; ++p) {
    const std::int64_t b = 1000 * p / n, share = 1000 * (p + 1) / n - b;
    // A quarter of the share, at least 1/16 of one: 125 of 500 for 2 threads, 84 of 333 or
    // 334 for 3, 32 of 125 for 8.
    want.emplace_back(b, n == 1 ? 1000 : b + (share + 3) / 4);
  }
  EXPECT_EQ(got, want);
}

TEST_P(ThreadPoolTest, RethrowsTheFirstException) {
  tk::cpu::ThreadPool pool(GetParam());
  std::atomic<std::int64_t> done{0};
  EXPECT_THROW(pool.parallel_for(100,
                                 [&](std::int64_t b, std::int64_t e) {
                                   if (b == 0)
                                     throw std::runtime_error("boom");
                                   done += e - b;
                                 }),
               std::runtime_error);
  // The throwing range did not count (it has at least one item: with the caller descheduled,
  // thieves may have taken all of its share but item 0); later ranges may or may not have run.
  EXPECT_LE(done.load(), 99);
  // The pool is usable afterwards and runs everything again.
  std::atomic<std::int64_t> total{0};
  pool.parallel_for(50, [&](std::int64_t b, std::int64_t e) { total += e - b; });
  EXPECT_EQ(total.load(), 50);
}

TEST_P(ThreadPoolTest, OnlyTheFirstExceptionIsKept) {
  tk::cpu::ThreadPool pool(GetParam());
  try {
    pool.parallel_for(GetParam(), [&](std::int64_t b, std::int64_t) {
      throw std::runtime_error("range " + std::to_string(b));
    });
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("range ", 0), 0u) << e.what();
  }
}

TEST_P(ThreadPoolTest, NestedCallsRunInline) {
  tk::cpu::ThreadPool pool(GetParam());
  std::atomic<std::int64_t> total{0};
  pool.parallel_for(8, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i)
      pool.parallel_for(10, [&](std::int64_t b2, std::int64_t e2) { total += e2 - b2; });
  });
  EXPECT_EQ(total.load(), 80);
}

TEST_P(ThreadPoolTest, UsesEveryThread) {
  tk::cpu::ThreadPool pool(GetParam());
  // One item per thread, and each item waits for all the others: only possible if every thread
  // (the caller included) runs one of them at the same time.
  std::latch all_here(GetParam());
  std::mutex m;
  std::vector<std::thread::id> ids;
  pool.parallel_for(pool.num_threads(), [&](std::int64_t, std::int64_t) {
    {
      std::lock_guard lock(m);
      ids.push_back(std::this_thread::get_id());
    }
    all_here.arrive_and_wait();
  });
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::unique(ids.begin(), ids.end()) - ids.begin(), GetParam());
}

TEST(ThreadPool, AStalledThreadDoesNotHoldUpTheRest) {
  // The range starting at 0 stalls until the other items are done (or 10 s pass): the other
  // thread runs its own share, then steals what is left of the stalled thread's meanwhile. When
  // the first thread starts late, the other may have stolen everything, chunk 0 included (it
  // then does not stall): one thread ran all 80, which is no hold-up either.
  tk::cpu::ThreadPool pool(2);
  std::atomic<std::int64_t> others{0};
  std::atomic<bool> timed_out{false};
  std::mutex m;
  std::map<std::thread::id, std::int64_t> items;
  pool.parallel_for(80, [&](std::int64_t b, std::int64_t e) {
    if (b == 0) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (others.load() < 70 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      timed_out = others.load() < 70;
    } else {
      others += e - b;
    }
    std::lock_guard lock(m);
    items[std::this_thread::get_id()] += e - b;
  });
  EXPECT_FALSE(timed_out.load()); // the other 70 items were done while chunk 0 stalled
  std::int64_t most = 0, all = 0;
  for (auto [id, n] : items)
    most = std::max(most, n), all += n;
  EXPECT_EQ(all, 80);
  // Two threads: the stalled one ran its first chunk (40 / 4 = 10), the other the rest.
  EXPECT_EQ(most, items.size() == 2 ? 70 : 80);
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPoolTest, ::testing::Values(1, 2, 3, 8));

TEST(ThreadPool, ConcurrentCallersShareOnePool) {
  tk::cpu::ThreadPool pool(3);
  std::atomic<std::int64_t> total{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      for (int rep = 0; rep < 50; ++rep)
        pool.parallel_for(37, [&](std::int64_t b, std::int64_t e) { total += e - b; });
    });
  for (auto& c : callers)
    c.join();
  EXPECT_EQ(total.load(), 4 * 50 * 37);
}

TEST(ThreadPool, DefaultPoolHasAtLeastOneThread) {
  EXPECT_GE(tk::cpu::default_pool().num_threads(), 1);
  std::atomic<std::int64_t> total{0};
  tk::cpu::parallel_for(1000, [&](std::int64_t b, std::int64_t e) { total += e - b; });
  EXPECT_EQ(total.load(), 1000);
}

// set_num_threads replaces the pool that parallel_for (and so generated code) runs on.
TEST(ThreadPool, SetNumThreadsReplacesTheDefaultPool) {
  const int before = tk::cpu::default_pool().num_threads();
  for (int n : {1, 3, 2, 0}) {
    tk::cpu::set_num_threads(n);
    EXPECT_EQ(tk::cpu::default_pool().num_threads(), std::max(n, 1));
    std::atomic<std::int64_t> total{0};
    std::atomic<int> calls{0};
    tk::cpu::parallel_for(1000, [&](std::int64_t b, std::int64_t e) {
      total += e - b;
      ++calls;
    });
    EXPECT_EQ(total.load(), 1000);
    if (n <= 1) {
      EXPECT_EQ(calls.load(), 1); // one thread: a single inline call
    }
  }
  tk::cpu::set_num_threads(before);
}

} // namespace

namespace {

// The default pool reads TILEKIT_NUM_THREADS once, so each case runs in a fresh process.
int default_threads_with(const char* value) {
  ::setenv("TILEKIT_NUM_THREADS", value, 1);
  return tk::cpu::default_pool().num_threads();
}

TEST(DefaultPoolDeathTest, ReadsTilekitNumThreads) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(default_threads_with("3")), ::testing::ExitedWithCode(3), "");
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Not a positive number: ignored.
  EXPECT_EXIT(std::exit(default_threads_with("zero")), ::testing::ExitedWithCode(hw), "");
  EXPECT_EXIT(std::exit(default_threads_with("-2")), ::testing::ExitedWithCode(hw), "");
}

} // namespace
