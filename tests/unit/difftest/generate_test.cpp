// The random kernel generator (tools/difftest/generate.hpp): what it makes passes the checker,
// the same seed gives the same kernel, and the kernels cover the language.
#include "dsl/check.hpp"
#include "parser/parse.hpp"
#include "tools/difftest/generate.hpp"

#include <gtest/gtest.h>

#include <cctype>
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

// Whether `word` occurs in `text`; one that starts with a letter not right after a letter, digit
// or '_' ("elu(" is not in "relu(x)").
bool has_word(const std::string& text, const std::string& word) {
  const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1))
    if (at == 0 || !std::isalpha(static_cast<unsigned char>(word[0])) || !ident(text[at - 1]))
      return true;
  return false;
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
                             "bcast_col(",   "zeros()",    "fill(-inf)", "exp2(",
                             "log1p(",       "sin(",       "cos(",       "sign(",
                             "floor(",       "softplus(",  "elu("})
      if (has_word(text, word))
        ++seen[word];
  }
  for (const char* shape : {"map", "row", "matmul", "col"})
    EXPECT_GT(seen[shape], 50) << shape;
  for (const auto& [word, n] : seen)
    EXPECT_GT(n, 3) << word;
  EXPECT_EQ(seen.size(), 4u + 47u) << "a construct never appears";
}

} // namespace
} // namespace tk::difftest
