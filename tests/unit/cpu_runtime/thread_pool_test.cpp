// The thread pool: every item exactly once, static contiguous ranges, exceptions, nesting.
#include <tilekit/cpu/thread_pool.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
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
    // At most one range per thread, none empty, sizes within one of each other.
    const auto expected = std::min<std::int64_t>(count, GetParam());
    ASSERT_EQ(static_cast<std::int64_t>(ranges.size()), expected) << "count " << count;
    std::sort(ranges.begin(), ranges.end());
    std::int64_t next = 0;
    for (auto [b, e] : ranges) {
      EXPECT_EQ(b, next);
      EXPECT_GT(e, b);
      EXPECT_LE(e - b, count / expected + 1);
      EXPECT_GE(e - b, count / expected);
      next = e;
    }
    EXPECT_EQ(next, count);
  }
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
  // Every other range still ran, and the pool is usable afterwards.
  const std::int64_t first = 100 / pool.num_threads() + (100 % pool.num_threads() ? 1 : 0);
  EXPECT_EQ(done.load(), 100 - first);
  std::atomic<std::int64_t> total{0};
  pool.parallel_for(50, [&](std::int64_t b, std::int64_t e) { total += e - b; });
  EXPECT_EQ(total.load(), 50);
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

TEST_P(ThreadPoolTest, UsesSeveralThreads) {
  tk::cpu::ThreadPool pool(GetParam());
  std::mutex m;
  std::vector<std::thread::id> ids;
  pool.parallel_for(pool.num_threads(), [&](std::int64_t, std::int64_t) {
    std::lock_guard lock(m);
    ids.push_back(std::this_thread::get_id());
  });
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::unique(ids.begin(), ids.end()) - ids.begin(), GetParam());
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
