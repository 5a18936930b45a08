// The random kernel generator (tools/difftest/generate.hpp): what it makes passes the checker,
// the same seed gives the same kernel, and the kernels cover the language.
#include "dsl/check.hpp"
#include "parser/parse.hpp"
#include "tools/difftest/generate.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace tk::difftest {
namespace {

TEST(DifftestGenerate, EveryKernelChecks) {
  for (std::uint64_t seed = 1; seed <= 500; ++seed) {
    const std::string text = print(generate(seed));
    SourceFile src("k.tk", text);
    Diagnostics diags(&src);
    auto m = parser::parse(src, diags);
    const bool ok = m && dsl::check(*m, diags);
    ASSERT_TRUE(ok) << "seed " << seed << ":\n" << text << diags.str();
  }
}

TEST(DifftestGenerate, TheSameSeedGivesTheSameKernel) {
  EXPECT_EQ(print(generate(42)), print(generate(42)));
  EXPECT_NE(print(generate(42)), print(generate(43)));
  // The first line gives the run, and parse_run reads it back.
  const Program p = generate(7);
  Program q;
  ASSERT_TRUE(parse_run(print(p), q));
  EXPECT_EQ(q.input_seed, 7u);
  EXPECT_EQ(q.dims, p.dims);
  EXPECT_EQ(q.scalar_values, p.scalar_values);
}

TEST(DifftestGenerate, KernelsCoverTheLanguage) {
  // Over 500 seeds every shape, every option, both dtypes, vectors, offsets and every builtin
  // of the op table appear.
  std::map<std::string, int> seen;
  for (std::uint64_t seed = 1; seed <= 500; ++seed) {
    const Program p = generate(seed);
    const std::string text = print(p);
    ++seen[p.shape];
    for (const char* word : {"grid =",       "cb_depth =", "fp32_acc =", "math_fidelity =",
                             "f32[",         "bf16[",      ", 1]",       "[1, ",
                             "j - 1]",       "alpha",      "+=",         "@",
                             "0 .. ",        "tiles(",     "exp(",       "log(",
                             "sqrt(",        "rsqrt(",     "recip(",     "relu(",
                             "gelu(",        "sigmoid(",   "tanh(",      "abs(",
                             "neg(",         "square(",    "silu(",      "erf(",
                             "hardsigmoid(", "max(",       "min(",       "rowsum(",
                             "rowmax(",      "colsum(",    "colmax(",    "bcast_row(",
                             "bcast_col(",   "zeros()",    "fill(-inf)"})
      if (text.find(word) != std::string::npos)
        ++seen[word];
  }
  for (const char* shape : {"map", "row", "matmul", "col"})
    EXPECT_GT(seen[shape], 50) << shape;
  for (const auto& [word, n] : seen)
    EXPECT_GT(n, 3) << word;
  EXPECT_EQ(seen.size(), 4u + 39u) << "a construct never appears";
}

} // namespace
} // namespace tk::difftest
