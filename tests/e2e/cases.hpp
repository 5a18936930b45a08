// Every example kernel as an end-to-end case: seeded inputs, a plain C++ reference in double,
// and a run through run_cpu or run_tt checked against the reference and the interpreter
// (verify()). The tests and the demo both iterate examples().
#pragma once

#include "tests/e2e/harness.hpp"

#include <string>
#include <vector>

namespace tk::e2e {

/// Sizes in elements. k is the reduction dimension of the matmul kernels (mlp: its hidden width F,
/// with D = n); the others ignore it (attention: its sequence S is m, its head width D is n).
struct Shape {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
};

struct Example {
  std::string name;  // the kernel's name, the stem of examples/<name>.tk
  bool tt_generated; // whether tilekit_add_kernel generated run_tt (CMake's TILEKIT_TARGETS)
  bool uses_k;
  Outcome (*run)(Backend, const Shape&);
};

/// Every example, in the order of examples/*.tk.
const std::vector<Example>& examples();

/// The shapes every example runs on: a single tile; K != M != N; work that does not divide the
/// 8x8 grid (15 and 90 output tiles, 65 tile rows); one over 512 in every dimension.
std::vector<Shape> test_shapes();
/// The demo's one representative shape.
Shape demo_shape();

/// "96x160" or "96x160x64" (M x N x K) for kernels with a reduction dimension.
std::string to_string(const Shape& s, bool uses_k);

} // namespace tk::e2e

namespace tk::e2e {
// The run function of each example (cases_matmul.cpp, cases_eltwise.cpp, cases_rows.cpp,
// cases_reduce.cpp, cases_attention.cpp).
Outcome run_attention(Backend b, const Shape& s);
Outcome run_attention_gqa(Backend b, const Shape& s);
Outcome run_axpby(Backend b, const Shape& s);
Outcome run_batched_matmul(Backend b, const Shape& s);
Outcome run_eltwise_add(Backend b, const Shape& s);
Outcome run_matmul(Backend b, const Shape& s);
Outcome run_matmul_bias_relu(Backend b, const Shape& s);
Outcome run_matmul_f32(Backend b, const Shape& s);
Outcome run_layernorm(Backend b, const Shape& s);
/// layernorm on x uniform in [lo, hi] (run_layernorm: [-1, 3]).
Outcome run_layernorm_on(Backend b, const Shape& s, double lo, double hi);
Outcome run_matmul_bt(Backend b, const Shape& s);
Outcome run_mlp(Backend b, const Shape& s);
/// mlp's double-precision reference (tests/e2e/test_materialise.cpp runs kernels of its shape).
Reference mlp_reference(const Matrix<bf16>& X, const Matrix<bf16>& W1, const Matrix<bf16>& b1,
                        const Matrix<bf16>& W2, const Matrix<bf16>& b2, bool tt);
Outcome run_rmsnorm(Backend b, const Shape& s);
Outcome run_softmax(Backend b, const Shape& s);
Outcome run_tensor_max(Backend b, const Shape& s);
Outcome run_unary_chain(Backend b, const Shape& s);

/// A seed that depends only on the example and the shape, so every run sees the same inputs.
std::uint64_t seed_for(const char* example, const Shape& s);
} // namespace tk::e2e
