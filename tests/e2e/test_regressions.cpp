// Kernels TileKit once miscompiled (tests/e2e/regress/*.tk), run through run_cpu and run_tt and
// compared with the interpreter element by element. The inputs are small integers (or quarters),
// so every target computes them exactly: the comparison is equality, and a few values are also
// spelled out to say what the language promises.
#include "tests/e2e/harness.hpp"

#include "dsl/check.hpp"
#include "parser/parse.hpp"

#include "store_then_zeros.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace tk::e2e {
namespace {

/// Runs kernel `name` of regress/<name>.tk in the interpreter.
std::map<std::string, interp::Matrix> interpret(const std::string& name,
                                                const interp::Inputs& in) {
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

} // namespace
} // namespace tk::e2e
