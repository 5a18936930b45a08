// Every element-wise op of the language end to end: the kernel `<op>_op` of tests/e2e/ops.tk,
// y = op(x), on both targets at two shapes, against a double reference and the interpreter
// (bf16 bound and PCC, harness.hpp). Adding an op to the op table adds one kernel and one row.
#include "tests/e2e/harness.hpp"

#include "ops.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <ostream>

namespace tk::e2e {
namespace {

using Entry = void (*)(MatrixView<const bf16>, MatrixView<bf16>);
using TtEntry = void (*)(tt::tt_metal::distributed::MeshDevice&, MatrixView<const bf16>,
                         MatrixView<bf16>);

struct OpCase {
  const char* op;
  Entry cpu;
  TtEntry tt;
  double lo, hi; // the input range: where the op is defined and not flat
  std::function<double(double)> ref;
};

#define TK_OP_CASE(op, lo, hi, ...)                                                                \
  OpCase {                                                                                         \
    #op, gen::op##_op::run_cpu, gen::op##_op::run_tt, lo, hi, __VA_ARGS__                          \
  }

const std::vector<OpCase>& cases() {
  static const std::vector<OpCase> all = {
      TK_OP_CASE(log, 0.125, 8, [](double x) { return std::log(x); }),
      TK_OP_CASE(sqrt, 0, 9, [](double x) { return std::sqrt(x); }),
      TK_OP_CASE(rsqrt, 0.25, 9, [](double x) { return 1 / std::sqrt(x); }),
      TK_OP_CASE(recip, 0.5, 4, [](double x) { return 1 / x; }),
      TK_OP_CASE(relu, -2, 2, [](double x) { return x > 0 ? x : 0.0; }),
      TK_OP_CASE(sigmoid, -4, 4, [](double x) { return 1 / (1 + std::exp(-x)); }),
      TK_OP_CASE(tanh, -2, 2, [](double x) { return std::tanh(x); }),
      TK_OP_CASE(abs, -3, 3, [](double x) { return std::fabs(x); }),
      TK_OP_CASE(neg, -3, 3, [](double x) { return -x; }),
      TK_OP_CASE(square, -3, 3, [](double x) { return x * x; }),
      TK_OP_CASE(silu, -6, 6, [](double x) { return x / (1 + std::exp(-x)); }),
      TK_OP_CASE(erf, -3, 3, [](double x) { return std::erf(x); }),
      TK_OP_CASE(hardsigmoid, -5, 5, [](double x) { return std::clamp(x / 6 + 0.5, 0.0, 1.0); }),
      TK_OP_CASE(exp2, -3, 3, [](double x) { return std::exp2(x); }),
      TK_OP_CASE(log1p, -0.875, 4, [](double x) { return std::log1p(x); }),
      TK_OP_CASE(sin, -7, 7, [](double x) { return std::sin(x); }),
      TK_OP_CASE(cos, -7, 7, [](double x) { return std::cos(x); }),
      TK_OP_CASE(sign, -3, 3, [](double x) { return x > 0   ? 1.0
                                                    : x < 0 ? -1.0
                                                            : 0.0; }),
      TK_OP_CASE(floor, -5, 5, [](double x) { return std::floor(x); }),
      // Up to 24: past the threshold 20, where softplus(x) is x itself.
      TK_OP_CASE(softplus, -8, 24, [](double x) { return x < 20 ? std::log1p(std::exp(x)) : x; }),
      TK_OP_CASE(elu, -4, 3, [](double x) { return x < 0 ? 0.5 * std::expm1(x) : x; }), // alpha 0.5
  };
  return all;
}

struct Param {
  OpCase c;
  Backend backend;
  std::int64_t m, n;
};

void PrintTo(const Param& p, std::ostream* os) {
  *os << p.c.op << " on " << to_string(p.backend) << " at " << p.m << "x" << p.n;
}

class OpTest : public ::testing::TestWithParam<Param> {};

TEST_P(OpTest, MatchesReference) {
  const Param& p = GetParam();
  Rng rng(0x5eed0000u + static_cast<std::uint64_t>(p.m * 131 + p.n));
  const auto x = random_bf16(p.m, p.n, p.c.lo, p.c.hi, rng);
  Matrix<bf16> y(p.m, p.n);
  if (p.backend == Backend::cpu)
    p.c.cpu(x.cview(), y.view());
  else
    p.c.tt(device(), x.cview(), y.view());
  Reference ref{p.m, p.n, std::vector<double>(x.data.size()), {}};
  for (std::size_t i = 0; i < x.data.size(); ++i)
    ref.value[i] = p.c.ref(static_cast<double>(static_cast<float>(x.data[i])));
  set_bf16_bound(ref);
  interp::Inputs in;
  in.tensors["x"] = to_interp(x);
  const Outcome out = verify_kernel(TK_E2E_OPS_FILE, std::string(p.c.op) + "_op", in, "y", y, ref);
  EXPECT_TRUE(out.ok) << out.detail;
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (const OpCase& c : cases())
    for (Backend b : {Backend::cpu, Backend::tt})
      for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{32, 32}, {96, 160}})
        out.push_back({c, b, m, n});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Ops, OpTest, ::testing::ValuesIn(params()), [](const auto& p_info) {
  const Param& p = p_info.param;
  return std::string(p.c.op) + "_" + to_string(p.backend) + "_" + std::to_string(p.m) + "x" +
         std::to_string(p.n);
});

} // namespace
} // namespace tk::e2e
