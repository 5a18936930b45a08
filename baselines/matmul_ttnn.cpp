// ttnn_mcast: ttnn's 2D-multicast matmul (MatmulMultiCoreReuseMultiCastProgramConfig, the program
// of ttnn/cpp/ttnn/operations/matmul/device/factory/matmul_multicore_reuse_mcast_2d_program_factory
// .cpp) as tests/ttnn/unit_tests/benchmarks/test_benchmark.py configures it for the rows of
// tech_reports/GEMM_FLOPS, written for TileKit: in0 read by the left column and multicast along
// each row (RISCV_1), in1 read by the top row and multicast down each column (RISCV_0, which also
// writes the output), partial sums accumulated in L1 by the packer (packer_l1_acc), each core's
// output computed out_block_h x out_block_w at a time (docs/baselines.md).
#include "baselines/matmul_ttnn.hpp"
#include "baselines/matmul_internal.hpp"
#include "baselines/matmul_mcast.hpp"

#include "arch/arch.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include <tt-metalium/tensor_accessor_args.hpp>

namespace tk::baselines {

namespace {
using tt::tt_metal::ComputeConfig;
using tt::tt_metal::CoreCoord;
using tt::tt_metal::CoreRange;
using tt::tt_metal::DataMovementConfig;
using tt::tt_metal::DataMovementProcessor;
using tt::tt_metal::KernelHandle;
using tt::tt_metal::NOC;
using tt::tt_metal::TensorAccessorArgs;
namespace distributed = tt::tt_metal::distributed;
using BufferPtr = std::shared_ptr<distributed::MeshBuffer>;

using detail::addr;
using detail::dims;
using detail::kernel;

} // namespace

// test_benchmark.py's SUBBLOCK_HW_CHOICES and get_subblock_sizes (out_sharded false), which are
// ttnn's SUBBLOCK_HW_CHOICES and bmm_op_utils::get_matmul_subblock_params without constraints.
std::pair<std::uint32_t, std::uint32_t> ttnn_subblock(std::uint32_t h, std::uint32_t w, bool fp32) {
  constexpr std::pair<std::uint32_t, std::uint32_t> kChoices[] = {
      {4, 2}, {2, 4}, {8, 1}, {1, 8}, {7, 1}, {1, 7}, {3, 2}, {2, 3}, {6, 1}, {1, 6},
      {5, 1}, {1, 5}, {2, 2}, {4, 1}, {1, 4}, {3, 1}, {1, 3}, {2, 1}, {1, 2}, {1, 1}};
  for (const auto& [sh, sw] : kChoices) {
    if (fp32 && sh * sw > 4)
      continue;
    if (h % sh == 0 && w % sw == 0)
      return {sh, sw};
  }
  return {1, 1};
}

TtnnConfig ttnn_config(MatmulShape shape, CoreCoord grid, const MatmulOptions& options,
                       const arch::ArchSpec& a) {
  const std::string name = "ttnn_mcast";
  const std::uint32_t Mt = shape.M / 32, Kt = shape.K / 32, Nt = shape.N / 32;
  const auto cols = static_cast<std::uint32_t>(grid.x), rows = static_cast<std::uint32_t>(grid.y);
  if (Mt % rows != 0 || Nt % cols != 0 || Kt % cols != 0 || rows < 2 || cols < 2) {
    throw std::invalid_argument(
        name +
        ": the benchmark's config needs M/32 divisible by the grid's rows and K/32 and N/32 " +
        "by its columns, on at least 2x2 cores; got " + dims(Mt, Kt) + "x" + std::to_string(Nt) +
        " tiles (MxKxN) on a " + dims(cols, rows) + " grid (x by y)");
  }
  if (options.in0_block_w_div == 0) {
    if (options.out_blocks_h != 1 || options.out_blocks_w != 1)
      throw std::invalid_argument(name + ": --out-blocks " +
                                  dims(options.out_blocks_h, options.out_blocks_w) +
                                  " with --in0-block-w-div 0: ttnn's automatic config picks its "
                                  "own out blocks");
    return ttnn_auto_config(shape, grid, options, a);
  }
  TtnnConfig c;
  c.per_core_M = Mt / rows;
  c.per_core_N = Nt / cols;
  c.num_blocks_y = rows;
  c.num_blocks_x = cols;
  if (options.out_blocks_h == 0 || options.out_blocks_w == 0 ||
      c.per_core_M % options.out_blocks_h != 0 || c.per_core_N % options.out_blocks_w != 0) {
    throw std::invalid_argument(
        name + ": --out-blocks " + dims(options.out_blocks_h, options.out_blocks_w) +
        " must divide the per-core block " + dims(c.per_core_M, c.per_core_N));
  }
  c.out_block_h = c.per_core_M / options.out_blocks_h;
  c.out_block_w = c.per_core_N / options.out_blocks_w;
  const std::uint32_t per_core_k = Kt / cols;
  if (per_core_k % options.in0_block_w_div != 0)
    throw std::invalid_argument(name + ": --in0-block-w-div " +
                                std::to_string(options.in0_block_w_div) + " must divide K/32 / " +
                                "grid columns = " + std::to_string(per_core_k));
  c.in0_block_w = per_core_k / options.in0_block_w_div;
  // The CBs this program creates: 2 in0 and 2 in1 blocks, one out block for the output and the
  // partial sums (two when the output is a block float: the partials stay Float16_b).
  const std::uint64_t tile = tt::tile_size(options.data_format);
  const std::uint64_t out_tile = options.data_format == tt::DataFormat::Float16_b
                                     ? tile
                                     : tile + tt::tile_size(tt::DataFormat::Float16_b);
  const std::uint64_t bytes = tile * 2 * c.in0_block_w * (c.out_block_h + c.out_block_w) +
                              out_tile * c.out_block_h * c.out_block_w;
  if (bytes > a.l1_cb_budget())
    throw std::invalid_argument(
        name + ": the CBs (2 in0 and 2 in1 blocks of in0_block_w " + std::to_string(c.in0_block_w) +
        ", the out block " + dims(c.out_block_h, c.out_block_w) + ": " + std::to_string(bytes) +
        " B) do not fit the " + std::to_string(a.l1_cb_budget()) + " B of L1 for CBs");
  std::tie(c.out_subblock_h, c.out_subblock_w) =
      ttnn_subblock(c.out_block_h, c.out_block_w, options.fp32_dest_acc_en);
  return c;
}

void ttnn_mcast_program(tt::tt_metal::Program& program, distributed::MeshDevice& device,
                        std::uint32_t Mt, std::uint32_t Kt, std::uint32_t Nt, const BufferPtr& a,
                        const BufferPtr& b, const BufferPtr& c, const MatmulOptions& options,
                        const TtnnConfig& cfg) {
  (void)Mt;
  const std::size_t cols = cfg.num_blocks_x, rows = cfg.num_blocks_y;
  const CoreRange all({0, 0}, {cols - 1, rows - 1});
  const std::uint32_t w = cfg.in0_block_w;
  const std::uint32_t num_blocks = Kt / w;
  const std::uint32_t in0_block_tiles = cfg.out_block_h * w, in1_block_tiles = w * cfg.out_block_w;
  const std::uint32_t out_block_tiles = cfg.out_block_h * cfg.out_block_w;
  const std::uint32_t out_blocks_h = cfg.per_core_M / cfg.out_block_h;
  const std::uint32_t out_blocks_w = cfg.per_core_N / cfg.out_block_w;

  // A, B and C in options.data_format; the partial sums the packer accumulates in L1 in Float16_b
  // (the 2D program factory's interm0_data_format with packer_l1_acc and no fp32 accumulation).
  const tt::DataFormat format = options.data_format;
  const std::uint32_t tile = tt::tile_size(format);
  const tt::DataFormat partials = tt::DataFormat::Float16_b;
  auto cb = [&](tt::CBIndex index, std::uint32_t tiles, tt::DataFormat f) {
    tt::tt_metal::CreateCircularBuffer(
        program, all,
        tt::tt_metal::CircularBufferConfig(tiles * tt::tile_size(f), {{index, f}})
            .set_page_size(index, tt::tile_size(f)));
  };
  cb(tt::CBIndex::c_0, 2 * in0_block_tiles, format);
  cb(tt::CBIndex::c_1, 2 * in1_block_tiles, format);
  const bool shared = format == partials;
  if (shared) {
    // The output and the partial sums share one out block of L1 (ttnn's, when their formats agree).
    tt::tt_metal::CreateCircularBuffer(
        program, all,
        tt::tt_metal::CircularBufferConfig(
            out_block_tiles * tile, {{tt::CBIndex::c_16, format}, {tt::CBIndex::c_24, format}})
            .set_page_size(tt::CBIndex::c_16, tile)
            .set_page_size(tt::CBIndex::c_24, tile));
  } else {
    cb(tt::CBIndex::c_16, out_block_tiles, format);
    cb(tt::CBIndex::c_24, out_block_tiles, partials);
  }

  const std::uint32_t in0_num_subblocks = cfg.out_block_h / cfg.out_subblock_h;
  const std::uint32_t in1_num_subblocks = cfg.out_block_w / cfg.out_subblock_w;
  const std::vector<std::uint32_t> compute_args = {w,
                                                   in0_num_subblocks,
                                                   in0_block_tiles,
                                                   cfg.out_subblock_h * w,
                                                   in1_num_subblocks,
                                                   in1_block_tiles,
                                                   cfg.out_block_w,
                                                   num_blocks,
                                                   cfg.out_subblock_h,
                                                   cfg.out_subblock_w,
                                                   cfg.out_subblock_h * cfg.out_subblock_w,
                                                   out_block_tiles,
                                                   out_blocks_h * out_blocks_w,
                                                   shared ? 0u : 1u};
  tt::tt_metal::CreateKernel(program, kernel("compute/bmm_ttnn_l1_acc.cpp"), all,
                             ComputeConfig{.math_fidelity = options.fidelity,
                                           .fp32_dest_acc_en = options.fp32_dest_acc_en,
                                           // The emulator models the packer's rounding into
                                           // Bfp8_b and Bfp4_b with it (ttnn leaves it off; no
                                           // cost).
                                           .bfp8_pack_precise = format == tt::DataFormat::Bfp8_b ||
                                                                format == tt::DataFormat::Bfp4_b,
                                           .compile_args = compute_args});

  // NoCs as the program factory picks them on Wormhole: in0 on NOC 1 (preferred_noc_for_dram_write)
  // except the interior's receivers on NOC 0; in1 and the writer on NOC 0
  // (preferred_noc_for_dram_read) except the interior's on NOC 1 (the "half-half" split).
  std::vector<std::uint32_t> in0_ct;
  TensorAccessorArgs(*a).append_to(in0_ct);
  auto dm = [&](const char* file, const CoreRange& cores, DataMovementProcessor risc, NOC noc,
                std::vector<std::uint32_t> ct) {
    return tt::tt_metal::CreateKernel(
        program, kernel(std::string("dataflow/") + file), cores,
        DataMovementConfig{.processor = risc, .noc = noc, .compile_args = std::move(ct)});
  };
  const CoreRange left({0, 0}, {0, rows - 1});
  const CoreRange top_receivers({1, 0}, {cols - 1, 0});
  const CoreRange interior({1, 1}, {cols - 1, rows - 1});
  const CoreRange top({0, 0}, {cols - 1, 0});
  const CoreRange left_receivers({0, 1}, {0, rows - 1});
  const KernelHandle in0_sender =
      dm("ttnn_in0_sender.cpp", left, DataMovementProcessor::RISCV_1, NOC::NOC_1, in0_ct);
  const KernelHandle in0_receiver_top =
      dm("ttnn_in0_receiver.cpp", top_receivers, DataMovementProcessor::RISCV_1, NOC::NOC_1, {});
  const KernelHandle in0_receiver_interior =
      dm("ttnn_in0_receiver.cpp", interior, DataMovementProcessor::RISCV_1, NOC::NOC_0, {});
  auto writer_ct = [&](bool sender) {
    std::vector<std::uint32_t> ct{sender ? 1u : 0u};
    TensorAccessorArgs(*b).append_to(ct);
    TensorAccessorArgs(*c).append_to(ct);
    return ct;
  };
  const KernelHandle in1_sender =
      dm("ttnn_in1_writer.cpp", top, DataMovementProcessor::RISCV_0, NOC::NOC_0, writer_ct(true));
  const KernelHandle in1_receiver_left =
      dm("ttnn_in1_writer.cpp", left_receivers, DataMovementProcessor::RISCV_0, NOC::NOC_0,
         writer_ct(false));
  const KernelHandle in1_receiver_interior =
      dm("ttnn_in1_writer.cpp", interior, DataMovementProcessor::RISCV_0, NOC::NOC_1,
         writer_ct(false));

  const detail::GridMcasts mcasts(program, device, cols, rows);
  for (std::uint32_t y = 0; y < rows; ++y) {
    for (std::uint32_t x = 0; x < cols; ++x) {
      const CoreCoord core{x, y};
      // in0: rows y * per_core_M .. of A, out block rows out_block_h apart.
      const NOC in0_noc = (x == 0 || y == 0) ? NOC::NOC_1 : NOC::NOC_0;
      std::vector<std::uint32_t> in0_args;
      if (x == 0) {
        in0_args = {addr(a),
                    Kt * cfg.per_core_M * y, // first tile
                    1,                       // stride_w
                    Kt,                      // stride_h
                    w,                       // next K-block
                    w,                       // block_w
                    cfg.out_block_h,         // block_h
                    in0_block_tiles,
                    num_blocks,
                    out_blocks_h,
                    out_blocks_w,
                    Kt * cfg.out_block_h}; // next out-block row
      } else {
        in0_args = {in0_block_tiles, num_blocks, out_blocks_h, out_blocks_w};
      }
      mcasts.push_in0(in0_args, y, in0_noc == NOC::NOC_1);
      tt::tt_metal::SetRuntimeArgs(
          program, x == 0 ? in0_sender : (y == 0 ? in0_receiver_top : in0_receiver_interior), core,
          in0_args);

      const NOC in1_noc = (x == 0 || y == 0) ? NOC::NOC_0 : NOC::NOC_1;
      std::vector<std::uint32_t> in1_args = {addr(b),
                                             cfg.per_core_N * x, // first tile
                                             1,                  // stride_w
                                             Nt,                 // stride_h
                                             w * Nt,             // next K-block
                                             cfg.out_block_w,    // block_w
                                             w,                  // block_h
                                             in1_block_tiles,
                                             num_blocks,
                                             out_blocks_h,
                                             out_blocks_w};
      mcasts.push_in1(in1_args, x, in1_noc == NOC::NOC_1);
      in1_args.insert(in1_args.end(),
                      {addr(c), y * cfg.per_core_M * Nt + x * cfg.per_core_N, Nt, cfg.out_block_h,
                       cfg.out_block_w, cfg.out_subblock_h, cfg.out_subblock_w});
      tt::tt_metal::SetRuntimeArgs(
          program, y == 0 ? in1_sender : (x == 0 ? in1_receiver_left : in1_receiver_interior), core,
          in1_args);
    }
  }
}

} // namespace tk::baselines
