// The reducer (tools/difftest/reduce.hpp) against predicates instead of runs: it removes what the
// failure does not need, keeps what it does, and never runs a program twice.
#include "tools/difftest/generate.hpp"
#include "tools/difftest/reduce.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace tk::difftest {
namespace {

bool has(const Program& p, const std::string& s) {
  return print(p).find(s) != std::string::npos;
}

TEST(DifftestReduce, ShrinksToWhatTheFailureNeeds) {
  // Find a generated matmul kernel with more than the product in it, and "fail" on any ' @ '.
  Program p;
  for (std::uint64_t seed = 1;; ++seed) {
    p = generate(seed);
    if (p.shape == "matmul" && print(p).size() > 400)
      break;
  }
  std::set<std::string> runs;
  const Program small = reduce(
      p,
      [&](const Program& c) {
        EXPECT_TRUE(runs.insert(print(c)).second) << "ran twice:\n" << print(c);
        return has(c, " @ ");
      },
      nullptr);
  EXPECT_TRUE(has(small, " @ "));
  EXPECT_LT(print(small).size(), print(p).size());
  for (const auto& [dim, size] : small.dims)
    EXPECT_EQ(size, 32) << dim;
  EXPECT_TRUE(small.options.empty());
  // Nothing left can be removed: every candidate loses the '@' (or is the same program).
  const Program again = reduce(small, [&](const Program& c) { return has(c, " @ "); }, nullptr);
  EXPECT_EQ(print(again), print(small));
}

TEST(DifftestReduce, KeepsAProgramThatNoCandidateReproduces) {
  const Program p = generate(3);
  EXPECT_EQ(print(reduce(p, [](const Program&) { return false; }, nullptr)), print(p));
}

} // namespace
} // namespace tk::difftest
