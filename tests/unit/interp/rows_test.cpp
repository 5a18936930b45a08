// Rows of tiles (docs/language.md, "Rows of tiles") in the interpreter: a row bound from a tensor,
// updated across a loop and stored; and FlashAttention-2's online softmax
// (tests/unit/interp/attention_flash.tk), each score tile computed once, against plain double
// loops and against examples/attention.tk, which recomputes the scores.
#include "tests/unit/interp/interp_test_util.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

namespace tk::interp::test {
namespace {

// y[i, d] = 2 * (x[i, d] + x[0, d] + ... + x[i - 1, d]): the row is bound from row tile i of x,
// carried across the triangular loop over k, then stored tile by tile.
const char* kPrefix = "kernel prefix(x: bf16[M, N]) -> (y: bf16[M, N]) {\n"
                      "  parallel i in tiles(M) {\n"
                      "    acc[d in tiles(N)] = x[i, d]\n"
                      "    for k in 0 .. i {\n"
                      "      for d in tiles(N) { acc[d] = acc[d] + x[k, d] }\n"
                      "    }\n"
                      "    for d in tiles(N) { y[i, d] = acc[d] * 2.0 }\n"
                      "  }\n"
                      "}\n";

TEST(InterpRows, BoundUpdatedCarriedAndStored) {
  const dsl::Kernel k = checked(kPrefix);
  const Matrix x = random(96, 64, -1, 1, 41);
  const Matrix want = make(96, 64, [&](std::int64_t r, std::int64_t c) {
    double v = x.at(r, c);
    for (std::int64_t t = 0; t < r / 32; ++t)
      v += x.at(32 * t + r % 32, c);
    return 2 * v;
  });
  EXPECT_TRUE(near(run(k, {{{"x", x}}, {}, {}}).at("y"), want));
}

// A row over a literal range, each tile its own function of the index, read by a tile value.
TEST(InterpRows, EachTileIsItsOwnValue) {
  const dsl::Kernel k = checked("kernel k(x: f32[M, 64]) -> (y: f32[M, 64]) {\n"
                                "  parallel i in tiles(M) {\n"
                                "    r[c in 0 .. 2] = exp(x[i, c])\n"
                                "    for c in 0 .. 2 { t = r[c] + x[i, c]; y[i, c] = t }\n"
                                "  }\n"
                                "}\n");
  const Matrix x = random(64, 64, -1, 1, 42);
  const Matrix want = make(
      64, 64, [&](std::int64_t r, std::int64_t c) { return std::exp(x.at(r, c)) + x.at(r, c); });
  EXPECT_TRUE(near(run(k, {{{"x", x}}, {}, {}}).at("y"), want));
}

dsl::Kernel flash() {
  const std::string path = std::string(TK_SOURCE_DIR) + "/tests/unit/interp/attention_flash.tk";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream text;
  text << in.rdbuf();
  return checked(text.str(), path);
}

// Causal attention over two heads, S x D = 96 x 64 (three key tiles per head, two output tiles
// per row), with scores of order 1 and larger (scale 0.5) so that the running max changes.
TEST(InterpRows, FlashAttentionMatchesPlainLoopsAndTheRecomputingExample) {
  constexpr std::int64_t kHeads = 2, S = 96, D = 64;
  Matrix Q = random(kHeads * S, D, -1, 1, 43), K = random(kHeads * S, D, -1, 1, 44),
         V = random(kHeads * S, D, -1, 1, 45);
  const double scale = 0.5;
  const Matrix want = causal_attention(Q, K, V, kHeads, S, D, scale);
  for (Matrix* t : {&Q, &K, &V}) {
    t->rows = S;
    t->batch = kHeads;
  }
  const Inputs in{{{"Q", Q}, {"K", K}, {"V", V}}, {{"scale", scale}}, {}};
  const Matrix got = run(flash(), in).at("O");
  EXPECT_TRUE(near(got, want));
  EXPECT_TRUE(near(got, run(example("attention"), in).at("O")));
}

} // namespace
} // namespace tk::interp::test
