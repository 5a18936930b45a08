// Calling a generated kernel with shapes its signature rejects throws tk::Error with the exact
// message of the shape checks (<tilekit/runtime.hpp>), on both targets, before touching memory.
#include "tests/e2e/harness.hpp"

#include "axpby.hpp"
#include "eltwise_add.hpp"
#include "matmul.hpp"
#include "matmul_bias_relu.hpp"
#include "matmul_f32.hpp"
#include "rmsnorm.hpp"
#include "softmax.hpp"
#include "unary_chain.hpp"

#include <gtest/gtest.h>

namespace tk::e2e {
namespace {

/// The message of the tk::Error that `f` throws, or a note that it threw none.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const tk::Error& e) {
    return e.what();
  }
  return "(no tk::Error thrown)";
}

// Expands to its arguments only when the example's TT code was generated.
#if TK_E2E_TT_axpby
#define TK_IF_TT_axpby(...) __VA_ARGS__
#else
#define TK_IF_TT_axpby(...)
#endif
#if TK_E2E_TT_eltwise_add
#define TK_IF_TT_eltwise_add(...) __VA_ARGS__
#else
#define TK_IF_TT_eltwise_add(...)
#endif
#if TK_E2E_TT_matmul
#define TK_IF_TT_matmul(...) __VA_ARGS__
#else
#define TK_IF_TT_matmul(...)
#endif
#if TK_E2E_TT_matmul_bias_relu
#define TK_IF_TT_matmul_bias_relu(...) __VA_ARGS__
#else
#define TK_IF_TT_matmul_bias_relu(...)
#endif
#if TK_E2E_TT_matmul_f32
#define TK_IF_TT_matmul_f32(...) __VA_ARGS__
#else
#define TK_IF_TT_matmul_f32(...)
#endif
#if TK_E2E_TT_rmsnorm
#define TK_IF_TT_rmsnorm(...) __VA_ARGS__
#else
#define TK_IF_TT_rmsnorm(...)
#endif
#if TK_E2E_TT_softmax
#define TK_IF_TT_softmax(...) __VA_ARGS__
#else
#define TK_IF_TT_softmax(...)
#endif
#if TK_E2E_TT_unary_chain
#define TK_IF_TT_unary_chain(...) __VA_ARGS__
#else
#define TK_IF_TT_unary_chain(...)
#endif

/// Expects run_cpu(ARGS...) and, when generated, run_tt(device, ARGS...) to throw MESSAGE.
#define EXPECT_SHAPE_ERROR(KERNEL, MESSAGE, ...)                                                   \
  do {                                                                                             \
    EXPECT_EQ(error_of([&] { gen::KERNEL::run_cpu(__VA_ARGS__); }), MESSAGE) << "run_cpu";         \
    TK_IF_TT_##KERNEL(                                                                             \
        EXPECT_EQ(error_of([&] { gen::KERNEL::run_tt(device(), __VA_ARGS__); }), MESSAGE)          \
            << "run_tt";)                                                                          \
  } while (false)

/// A zero matrix of the given size (the checks never read it).
Matrix<bf16> mb(std::int64_t r, std::int64_t c) {
  return Matrix<bf16>(r, c);
}

TEST(ShapeErrors, Matmul) {
  auto A = mb(64, 70), B = mb(70, 32), C = mb(64, 32);
  EXPECT_SHAPE_ERROR(matmul, "matmul: A.cols = 70 is not a multiple of 32", A.cview(), B.cview(),
                     C.view());
  auto A2 = mb(64, 64), B2 = mb(96, 32);
  EXPECT_SHAPE_ERROR(matmul, "matmul: dimension K mismatch: A.cols = 64 but B.rows = 96",
                     A2.cview(), B2.cview(), C.view());
  auto B3 = mb(64, 32), C3 = mb(32, 32);
  EXPECT_SHAPE_ERROR(matmul, "matmul: dimension M mismatch: A.rows = 64 but C.rows = 32",
                     A2.cview(), B3.cview(), C3.view());
}

TEST(ShapeErrors, MatmulBiasReluNeedsARowVector) {
  auto A = mb(64, 64), B = mb(64, 64), bias = mb(32, 64), C = mb(64, 64);
  EXPECT_SHAPE_ERROR(matmul_bias_relu,
                     "matmul_bias_relu: bias.rows = 32 but must be exactly 1 (a row vector)",
                     A.cview(), B.cview(), bias.cview(), C.view());
}

TEST(ShapeErrors, MatmulF32NegativeRows) {
  Matrix<float> A(32, 32), B(32, 32), C(32, 32);
  MatrixView<const float> bad{A.data.data(), -32, 32};
  EXPECT_SHAPE_ERROR(matmul_f32, "matmul_f32: A.rows = -32 is negative", bad, B.cview(), C.view());
}

TEST(ShapeErrors, ElementWise) {
  auto x = mb(32, 32), y = mb(64, 32), z = mb(32, 64);
  EXPECT_SHAPE_ERROR(eltwise_add, "eltwise_add: dimension M mismatch: x.rows = 32 but y.rows = 64",
                     x.cview(), y.cview(), x.view());
  EXPECT_SHAPE_ERROR(axpby, "axpby: dimension N mismatch: x.cols = 32 but z.cols = 64", x.cview(),
                     x.cview(), 1.0f, 2.0f, z.view());
  auto x48 = mb(48, 32);
  EXPECT_SHAPE_ERROR(unary_chain, "unary_chain: x.rows = 48 is not a multiple of 32", x48.cview(),
                     x48.view());
}

// A named dimension holds at least one tile (docs/language.md); 0 used to pass, and the kernel
// then read out of bounds (a literal index 0 on an empty tensor) or failed in the emulator.
TEST(ShapeErrors, ZeroNamedDimension) {
  auto A = mb(0, 96), B = mb(96, 32), C = mb(0, 32);
  EXPECT_SHAPE_ERROR(matmul,
                     "matmul: A.rows = 0 but dimension M holds at least one tile (a positive "
                     "multiple of 32)",
                     A.cview(), B.cview(), C.view());
  auto A2 = mb(64, 0), B2 = mb(0, 32), C2 = mb(64, 32);
  EXPECT_SHAPE_ERROR(matmul,
                     "matmul: A.cols = 0 but dimension K holds at least one tile (a positive "
                     "multiple of 32)",
                     A2.cview(), B2.cview(), C2.view());
  auto A3 = mb(64, 64), B3 = mb(64, 64), bias = mb(1, 0), C3 = mb(64, 64);
  EXPECT_SHAPE_ERROR(matmul_bias_relu,
                     "matmul_bias_relu: bias.cols = 0 but dimension N holds at least one tile (a "
                     "positive multiple of 32)",
                     A3.cview(), B3.cview(), bias.cview(), C3.view());
}

TEST(ShapeErrors, RowKernels) {
  auto x = mb(32, 32), y = mb(32, 32), g = mb(1, 64);
  MatrixView<const bf16> null_x{nullptr, 32, 32};
  EXPECT_SHAPE_ERROR(softmax, "softmax: x.data is null but x is 32x32", null_x, y.view());
  EXPECT_SHAPE_ERROR(rmsnorm, "rmsnorm: dimension N mismatch: x.cols = 32 but g.cols = 64",
                     x.cview(), g.cview(), 1.0f / 32, 1e-5f, y.view());
}

} // namespace
} // namespace tk::e2e
