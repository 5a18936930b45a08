// mlp at literal sizes (tests/e2e/materialise.tk), whose materialise decision the timing model
// makes: the materialised form (two programs, a scratch tensor of literal size) and the kept one,
// on both targets, against mlp's double-precision reference (cases_matmul.cpp) and the
// interpreter.
#include "tests/e2e/cases.hpp"
#include "tests/e2e/harness.hpp"

#include "materialise.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace tk::e2e {
namespace {

class MaterialiseByModel : public ::testing::TestWithParam<Backend> {};

struct Inputs {
  Matrix<bf16> X, W1, b1, W2, b2;
};

// Weights scaled by 2/sqrt(fan-in), as run_mlp's.
Inputs inputs(std::int64_t M, std::int64_t D, std::int64_t F, std::uint64_t seed) {
  Rng rng(seed);
  const auto s1 = static_cast<float>(2 / std::sqrt(static_cast<double>(D)));
  const auto s2 = static_cast<float>(2 / std::sqrt(static_cast<double>(F)));
  Inputs in{random_bf16(M, D, -1, 1, rng), random_bf16(D, F, -s1, s1, rng),
            random_bf16(1, F, -0.5, 0.5, rng), random_bf16(F, D, -s2, s2, rng),
            random_bf16(1, D, -0.5, 0.5, rng)};
  return in;
}

template <class Cpu, class Tt>
void run(Backend backend, const char* kernel, std::int64_t M, std::int64_t D, std::int64_t F,
         Cpu cpu, Tt tt) {
  const Inputs in = inputs(M, D, F, 0x3a7e + static_cast<std::uint64_t>(M + D + F));
  Matrix<bf16> Y(M, D);
  launch(
      backend,
      [&] {
        cpu(in.X.cview(), in.W1.cview(), in.b1.cview(), in.W2.cview(), in.b2.cview(), Y.view());
      },
      [&] {
        tt(device(), in.X.cview(), in.W1.cview(), in.b1.cview(), in.W2.cview(), in.b2.cview(),
           Y.view());
      });
  const Reference ref = mlp_reference(in.X, in.W1, in.b1, in.W2, in.b2, backend == Backend::tt);
  const Outcome out = verify_kernel(TK_E2E_MATERIALISE_FILE, kernel,
                                    {{{"X", to_interp(in.X)},
                                      {"W1", to_interp(in.W1)},
                                      {"b1", to_interp(in.b1)},
                                      {"W2", to_interp(in.W2)},
                                      {"b2", to_interp(in.b2)}},
                                     {},
                                     {}},
                                    "Y", Y, ref);
  EXPECT_TRUE(out.ok) << kernel << ": " << out.detail;
}

TEST_P(MaterialiseByModel, Materialised) {
  run(GetParam(), "mlp_model_dram", 64, 128, 256, gen::mlp_model_dram::run_cpu,
      gen::mlp_model_dram::run_tt);
}

TEST_P(MaterialiseByModel, Recomputed) {
  run(GetParam(), "mlp_model_recompute", 32, 64, 32, gen::mlp_model_recompute::run_cpu,
      gen::mlp_model_recompute::run_tt);
}

INSTANTIATE_TEST_SUITE_P(Targets, MaterialiseByModel, ::testing::Values(Backend::cpu, Backend::tt),
                         [](const ::testing::TestParamInfo<Backend>& p) {
                           return to_string(p.param);
                         });

} // namespace
} // namespace tk::e2e
