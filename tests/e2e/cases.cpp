// The list of end-to-end cases and the shapes they run on (cases.hpp).
#include "tests/e2e/cases.hpp"

namespace tk::e2e {

const std::vector<Example>& examples() {
  static const std::vector<Example> all = {
      {"attention", TK_E2E_TT_attention, false, run_attention},
      {"attention_gqa", TK_E2E_TT_attention_gqa, false, run_attention_gqa},
      {"axpby", TK_E2E_TT_axpby, false, run_axpby},
      {"batched_matmul", TK_E2E_TT_batched_matmul, true, run_batched_matmul},
      {"eltwise_add", TK_E2E_TT_eltwise_add, false, run_eltwise_add},
      {"matmul", TK_E2E_TT_matmul, true, run_matmul},
      {"matmul_bias_relu", TK_E2E_TT_matmul_bias_relu, true, run_matmul_bias_relu},
      {"matmul_bt", TK_E2E_TT_matmul_bt, true, run_matmul_bt},
      {"matmul_f32", TK_E2E_TT_matmul_f32, true, run_matmul_f32},
      {"layernorm", TK_E2E_TT_layernorm, false, run_layernorm},
      {"mlp", TK_E2E_TT_mlp, true, run_mlp},
      {"rmsnorm", TK_E2E_TT_rmsnorm, false, run_rmsnorm},
      {"softmax", TK_E2E_TT_softmax, false, run_softmax},
      {"tensor_max", TK_E2E_TT_tensor_max, false, run_tensor_max},
      {"unary_chain", TK_E2E_TT_unary_chain, false, run_unary_chain},
  };
  return all;
}

std::vector<Shape> test_shapes() {
  return {
      {32, 32, 32},    // a single tile
      {64, 128, 96},   // non-square, K != M != N
      {96, 160, 64},   // 15 output tiles on 64 cores
      {288, 320, 96},  // 90 output tiles: 64 cores, 26 of them with a second tile
      {2080, 64, 32},  // 65 tile rows: uneven for the row-parallel kernels (softmax, rmsnorm)
      {544, 576, 608}, // over 512 in every dimension
  };
}

Shape demo_shape() {
  return {256, 384, 320};
}

std::string to_string(const Shape& s, bool uses_k) {
  std::string r = std::to_string(s.m) + "x" + std::to_string(s.n);
  if (uses_k)
    r += "x" + std::to_string(s.k);
  return r;
}

std::uint64_t seed_for(const char* example, const Shape& s) {
  std::uint64_t h = 14695981039346656037ull; // FNV-1a
  auto mix = [&](std::uint64_t v) {
    h ^= v;
    h *= 1099511628211ull;
  };
  for (const char* p = example; *p != '\0'; ++p)
    mix(static_cast<unsigned char>(*p));
  mix(static_cast<std::uint64_t>(s.m));
  mix(static_cast<std::uint64_t>(s.n));
  mix(static_cast<std::uint64_t>(s.k));
  return h;
}

} // namespace tk::e2e
