// Kernels TileKit once miscompiled (tests/e2e/regress/*.tk), run through run_cpu and run_tt and
// compared with the interpreter element by element. The inputs are small integers (or quarters),
// so every target computes them exactly: the comparison is equality, and a few values are also
// spelled out to say what the language promises.
#include "tests/e2e/harness.hpp"

#include "dsl/check.hpp"
#include "parser/parse.hpp"

#include "reduce_into_constant.hpp"
#include "reduce_max_full.hpp"
#include "store_then_zeros.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace tk::e2e {
namespace {

/// Runs kernel `name` of regress/<name>.tk in the interpreter.
std::map<std::string, interp::Matrix> interpret(const std::string& name, const interp::Inputs& in) {
  const std::string path = std::string(TK_REGRESS_DIR) + "/" + name + ".tk";
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  SourceFile file(path, text.str());
  Diagnostics diags(&file);
  std::optional<dsl::Module> m = parser::parse(file, diags);
  if (!m || !dsl::check(*m, diags))
    throw std::runtime_error(path + " does not check:\n" + diags.str());
  return interp::run(m->kernels.at(0), in);
}

/// "" when `got` equals `want` element by element, else the first differences.
template <class T>
std::string differences(const Matrix<T>& got, const interp::Matrix& want) {
  if (got.rows != want.rows || got.cols != want.cols)
    return "shape " + std::to_string(got.rows) + "x" + std::to_string(got.cols) + " vs " +
           std::to_string(want.rows) + "x" + std::to_string(want.cols);
  std::string out;
  int bad = 0;
  for (std::int64_t r = 0; r < got.rows; ++r)
    for (std::int64_t c = 0; c < got.cols; ++c)
      if (!(got.at(r, c) == want.at(r, c)) && bad++ < 5)
        out += "(" + std::to_string(r) + ", " + std::to_string(c) + "): got " +
               std::to_string(got.at(r, c)) + ", interpreter " + std::to_string(want.at(r, c)) +
               "\n";
  return bad ? std::to_string(bad) + " differences\n" + out : "";
}

class Regression : public ::testing::TestWithParam<Backend> {};
INSTANTIATE_TEST_SUITE_P(Targets, Regression, ::testing::Values(Backend::cpu, Backend::tt),
                         [](const auto& p) { return std::string(to_string(p.param)); });

// A store of m and `s = zeros()` shared one DST section on TT, so s started at m's tile:
// b came out as the right sum plus m.
TEST_P(Regression, StoreThenZeros) {
  const std::int64_t M = 64, N = 96;
  Matrix<bf16> x(M, N), a(M, 1), b(M, 1);
  // Values in {-2, -1, 0, 1}: row maxima 0 or 1, sums of (x - m) down to -192, all exact in bf16.
  for (std::int64_t r = 0; r < M; ++r)
    for (std::int64_t c = 0; c < N; ++c)
      x.data[static_cast<std::size_t>(r * N + c)] =
          bf16(static_cast<float>((r * 5 + c) % 3 - 1 - r % 2));
  launch(
      GetParam(), [&] { gen::store_then_zeros::run_cpu(x.cview(), a.view(), b.view()); },
      [&] { gen::store_then_zeros::run_tt(device(), x.cview(), a.view(), b.view()); });
  auto want = interpret("store_then_zeros", {{{"x", to_interp(x)}}, {}, {}});
  EXPECT_EQ(differences(a, want.at("a")), "");
  EXPECT_EQ(differences(b, want.at("b")), "");
  // Row 0: values -1, 0, 1 repeating, m = 1, b = 32 * (-2) + 32 * (-1) + 32 * 0 = -96.
  EXPECT_EQ(a.at(0, 0), 1.0);
  EXPECT_EQ(b.at(0, 0), -96.0);
}

// rowmax / colmax hold 0 outside column (row) 0, as rowsum / colsum do (language.md); TT left
// the -inf its max pool starts from there.
TEST_P(Regression, ReduceMaxIsZeroOutsideItsVector) {
  const std::int64_t M = 64, N = 64;
  Matrix<bf16> x(M, N), r(M, N), c(M, N), rb(M, N), cs(M, N);
  // Quarters in [-5, 4.75], all exact in bf16, with negative maxima in some rows and columns.
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j)
      x.data[static_cast<std::size_t>(i * N + j)] =
          bf16(static_cast<float>((i * 7 + j * 13) % 40 - 20 - (i + j) % 17) * 0.25f);
  launch(
      GetParam(),
      [&] { gen::reduce_max_full::run_cpu(x.cview(), r.view(), c.view(), rb.view(), cs.view()); },
      [&] {
        gen::reduce_max_full::run_tt(device(), x.cview(), r.view(), c.view(), rb.view(), cs.view());
      });
  auto want = interpret("reduce_max_full", {{{"x", to_interp(x)}}, {}, {}});
  EXPECT_EQ(differences(r, want.at("r")), "");
  EXPECT_EQ(differences(c, want.at("c")), "");
  EXPECT_EQ(differences(rb, want.at("rb")), "");
  EXPECT_EQ(differences(cs, want.at("cs")), "");
  EXPECT_EQ(r.at(5, 1), 0.0);  // rowmax outside column 0
  EXPECT_EQ(c.at(1, 5), 0.0);  // colmax outside row 0
  EXPECT_EQ(rb.at(1, 5), 0.0); // bcast_col of colmax: rows 1-31 of column 0 are 0
  EXPECT_EQ(cs.at(5, 1), 1.0); // rowmax * 2 + 1 outside column 0: 0 * 2 + 1
}

// fill(1.0) + rowsum(x) and max(fill(1.0), rowmax(x)) are 1 off column 0; reducing into the
// constant's slot and packing under the reduce mask would give 0 there. fill(-1.0) may take the
// reduction in DST: max(-1, 0) = 0 is what the mask writes.
TEST_P(Regression, ReduceIntoAConstant) {
  const std::int64_t M = 64, N = 64;
  Matrix<bf16> x(M, N), s(M, N), a(M, 32), b(M, 32);
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j)
      x.data[static_cast<std::size_t>(i * N + j)] =
          bf16(static_cast<float>((i * 3 + j * 5) % 9 - 6 - i % 3) * 0.5f);
  launch(
      GetParam(),
      [&] { gen::reduce_into_constant::run_cpu(x.cview(), s.view(), a.view(), b.view()); },
      [&] {
        gen::reduce_into_constant::run_tt(device(), x.cview(), s.view(), a.view(), b.view());
      });
  auto want = interpret("reduce_into_constant", {{{"x", to_interp(x)}}, {}, {}});
  EXPECT_EQ(differences(s, want.at("s")), "");
  EXPECT_EQ(differences(a, want.at("a")), "");
  EXPECT_EQ(differences(b, want.at("b")), "");
  EXPECT_EQ(s.at(3, 7), 1.0); // 1 + 0
  EXPECT_EQ(a.at(3, 7), 1.0); // max(1, 0)
  EXPECT_EQ(b.at(3, 7), 0.0); // max(-1, 0)
}

} // namespace
} // namespace tk::e2e
