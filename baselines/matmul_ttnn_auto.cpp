// ttnn's automatic matmul configuration for in0, in1 and the output interleaved in DRAM: what
// `in0 @ in1` resolves to without a program config (the "out of box" rows of tech_reports/
// GEMM_FLOPS, tests/ttnn/unit_tests/benchmarks/test_benchmark.py's
// test_matmul_2d_host_perf_out_of_box). Written for TileKit from reading tenstorrent/tt-metal
// (snapshot a8c5af0f5a26) ttnn/cpp/ttnn/operations/matmul/device/config/
// matmul_program_config.cpp: create_simple_matmul_program_config (its all-DRAM-interleaved 2D
// multicast branch), get_per_core_factor, get_multi_dim_per_core_factor and bmm_op_utils::
// get_matmul_subblock_params, with the CB estimate of ../utilities/matmul_utilities.cpp
// (get_estimated_size_of_cbs, estimate_interm_tile_size, get_max_l1_space).
#include "baselines/matmul.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace tk::baselines {

namespace {

/// get_estimated_size_of_cbs without bias, sharding or transposes: in0 and in1 double-buffered
/// (MCAST_INPUT_BUFFERING_DEPTH 2), the output (estimated at in0's tile size) and the partial sums
/// each a whole block.
std::uint64_t cb_bytes(std::uint32_t m, std::uint32_t n, std::uint32_t k, std::uint32_t tile,
                       std::uint32_t interm_tile) {
  return std::uint64_t{m} * k * 2 * tile + std::uint64_t{n} * k * 2 * tile +
         std::uint64_t{m} * n * tile + std::uint64_t{m} * n * interm_tile;
}

/// get_multi_dim_per_core_factor with adjust_in0_block_w: the largest out block (m x n, its
/// factors of per_core_M x per_core_N, the squarest of each product; the whole block when it fits)
/// whose CBs fit, trying in0_block_w first and then each smaller divisor of it.
std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>
out_block(std::uint32_t per_core_M, std::uint32_t per_core_N, std::uint32_t in0_block_w,
          std::uint32_t tile, std::uint32_t interm_tile, std::uint64_t l1) {
  if (cb_bytes(per_core_M, per_core_N, in0_block_w, tile, interm_tile) < l1)
    return {per_core_M, per_core_N, in0_block_w};
  auto factors = [](std::uint32_t v) {
    std::vector<std::uint32_t> f = {v, 1};
    for (std::uint32_t d = v / 2; d > 1; --d)
      if (v % d == 0)
        f.push_back(d);
    return f;
  };
  auto ratio = [](std::uint32_t a, std::uint32_t b) {
    return static_cast<float>(std::max(a, b)) / static_cast<float>(std::min(a, b));
  };
  // Product -> (m, n): a later pair replaces an earlier one unless the earlier is squarer.
  std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> by_product;
  for (std::uint32_t m : factors(per_core_M)) {
    for (std::uint32_t n : factors(per_core_N)) {
      const auto it = by_product.find(m * n);
      if (it == by_product.end() || !(ratio(it->second.first, it->second.second) < ratio(m, n)))
        by_product[m * n] = {m, n};
    }
  }
  for (std::uint32_t k = in0_block_w; k >= 1; --k) {
    if (in0_block_w % k != 0)
      continue;
    for (auto it = by_product.rbegin(); it != by_product.rend(); ++it)
      if (cb_bytes(it->second.first, it->second.second, k, tile, interm_tile) < l1)
        return {it->second.first, it->second.second, k};
  }
  return {1, 1, 1};
}

} // namespace

TtnnConfig ttnn_auto_config(MatmulShape shape, tt::tt_metal::CoreCoord grid,
                            const MatmulOptions& options, const arch::ArchSpec& a) {
  const std::string name = "ttnn_mcast (ttnn's automatic config)";
  const std::uint32_t Mt = shape.M / 32, Kt = shape.K / 32, Nt = shape.N / 32;
  const auto cols = static_cast<std::uint32_t>(grid.x), rows = static_cast<std::uint32_t>(grid.y);
  // get_max_l1_space: L1 above the allocator's base, no L1 buffers being allocated (all in DRAM).
  const std::uint64_t l1 = a.l1_cb_budget();
  const std::uint32_t tile = tt::tile_size(options.data_format);
  // estimate_interm_tile_size: Float32 with fp32 accumulation, else the larger of a Float16_b tile
  // (the packer's L1 accumulation) and an output tile.
  const std::uint32_t interm_tile = options.fp32_dest_acc_en
                                        ? tt::tile_size(tt::DataFormat::Float32)
                                        : std::max(tt::tile_size(tt::DataFormat::Float16_b), tile);

  // Which program: get_per_core_factor's square block (in0_block_w 2) decides whether the grid of
  // blocks is a single row or column (then ttnn takes a 1D multicast config, not ported); an
  // is_narrow_shape output (one side over 8 times the other, or a side of one tile) too.
  std::uint32_t square = 1;
  for (std::uint32_t f = 16; f > 1; f /= 2) {
    if (cb_bytes(f, f, 2, tile, interm_tile) < l1) {
      square = f;
      break;
    }
  }
  const std::uint32_t blocks_y = (Mt - 1) / square + 1, blocks_x = (Nt - 1) / square + 1;
  const bool fits_grid = !(blocks_y == 1 && blocks_x == 1) && blocks_y <= rows && blocks_x <= cols;
  const std::uint32_t height = shape.M, width = shape.N;
  const bool narrow =
      std::max(height, width) / std::min(height, width) > 8 || height <= 32 || width <= 32;
  if (narrow || (fits_grid && (blocks_y == 1 || blocks_x == 1)))
    throw std::invalid_argument(name + ": ttnn takes a 1D multicast config for " +
                                std::to_string(shape.M) + "x" + std::to_string(shape.K) + "x" +
                                std::to_string(shape.N) + " (not ported)");

  // The 2D multicast branch with all_dram_interleaved.
  TtnnConfig c;
  c.num_blocks_x = cols;
  c.num_blocks_y = rows;
  c.per_core_M = (Mt + rows - 1) / rows;
  c.per_core_N = (Nt + cols - 1) / cols;
  const std::uint32_t w = Kt % cols == 0 ? Kt / cols : 1;
  std::tie(c.out_block_h, c.out_block_w, c.in0_block_w) =
      out_block(c.per_core_M, c.per_core_N, w, tile, interm_tile, l1);
  std::tie(c.out_subblock_h, c.out_subblock_w) =
      ttnn_subblock(c.out_block_h, c.out_block_w, options.fp32_dest_acc_en);
  return c;
}

} // namespace tk::baselines
