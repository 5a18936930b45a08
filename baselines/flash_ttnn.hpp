// The FlashAttention baseline: ttnn's causal SDPA prefill program written for TileKit
// (flash_ttnn.cpp, kernels/compute/sdpa_flash.cpp, kernels/dataflow/sdpa_{reader,writer}.cpp;
// docs/baselines.md, "FlashAttention").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/distributed.hpp>
#include <tt-metalium/tt_backend_api_types.hpp>

namespace tk::baselines {

/// Causal attention over H heads (batch x heads, flattened) of S x D, bf16.
struct FlashShape {
  std::uint32_t H = 0, S = 0, D = 0;
};

struct FlashOptions {
  /// SDPAProgramConfig's q_chunk_size and k_chunk_size, in elements (multiples of 32 dividing S).
  std::uint32_t q_chunk = 256, k_chunk = 256;
  /// The published figures' compute config: HiFi2, math_approx_mode, bf16 DST.
  tt::tt_metal::MathFidelity fidelity = tt::tt_metal::MathFidelity::HiFi2;
  /// Q, K, V and O in DRAM and their CBs: Float16_b, or Bfp8_b (the report's bfp8 row); the
  /// intermediates are Float16_b either way, as ttnn's.
  tt::DataFormat data_format = tt::DataFormat::Float16_b;
};

/// The program factory's choices for a shape on the device's grid.
struct FlashPlan {
  std::uint32_t St = 0, DHt = 0, Sq_chunk_t = 0, Sk_chunk_t = 0, q_num_chunks = 0;
  std::uint32_t cores = 0, nh_parallel = 0, q_parallel = 0, nh_per_core = 0, q_per_core = 0;
  bool balanced = false;
  std::uint32_t qk_subblock_h = 0, qk_subblock_w = 0, out_subblock_h = 0, out_subblock_w = 0;
  std::uint32_t stats_granularity = 0, sub_exp_granularity = 0, dht_granularity = 0;
  std::uint64_t cb_bytes = 0;
};

/// Throws std::invalid_argument (saying why) when the shape or the chunks do not fit.
FlashPlan flash_plan(const tt::tt_metal::distributed::MeshDevice& device, FlashShape shape,
                     const FlashOptions& options);
std::string describe_flash_plan(const FlashPlan& plan);

/// O = softmax(Q K^T * scale, causal) V per head. q, k, v: H*S x D row-major, or all empty (no
/// inputs written, no output read: a timing run). Returns O row-major as floats. With Bfp8_b the
/// inputs are packed to Bfp8_b pages as ttnn.from_torch(dtype=bfloat8_b) does.
std::vector<float> run_flash_ttnn(tt::tt_metal::distributed::MeshDevice& device, FlashShape shape,
                                  const std::vector<bfloat16>& q, const std::vector<bfloat16>& k,
                                  const std::vector<bfloat16>& v, float scale,
                                  const FlashOptions& options = {});

} // namespace tk::baselines
