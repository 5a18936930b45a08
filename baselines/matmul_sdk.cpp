// Host programs of the SDK's four matmul programming examples (tt-metal
// tt_metal/programming_examples/matmul/), one function each, on the real TT-Metalium host API
// (matmul_sdk.hpp).
#include "baselines/matmul_sdk.hpp"
#include "baselines/matmul_internal.hpp"
#include "baselines/matmul_mcast.hpp"

#include <utility>
#include <variant>
#include <vector>

#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>
#include <tt-metalium/work_split.hpp>

namespace tk::baselines {
namespace {

using tt::constants::TILE_HEIGHT;
using tt::constants::TILE_HW;
using tt::constants::TILE_WIDTH;
using tt::tt_metal::BufferType;
using tt::tt_metal::ComputeConfig;
using tt::tt_metal::CoreCoord;
using tt::tt_metal::CoreRange;
using tt::tt_metal::CoreRangeSet;
using tt::tt_metal::DataMovementConfig;
using tt::tt_metal::DataMovementProcessor;
using tt::tt_metal::KernelHandle;
using tt::tt_metal::MathFidelity;
using tt::tt_metal::NOC;
using tt::tt_metal::Program;
using tt::tt_metal::TensorAccessorArgs;
namespace distributed = tt::tt_metal::distributed;
using BufferPtr = std::shared_ptr<distributed::MeshBuffer>;
using Cores = std::variant<CoreCoord, CoreRange, CoreRangeSet>;

using detail::addr;
using detail::kernel;
using detail::kTileBytes;
constexpr tt::DataFormat kFormat = tt::DataFormat::Float16_b;

std::vector<std::uint32_t> accessor_args(std::initializer_list<BufferPtr> buffers) {
  std::vector<std::uint32_t> args;
  for (const BufferPtr& b : buffers)
    TensorAccessorArgs(*b).append_to(args);
  return args;
}

void add_cb(Program& program, const Cores& cores, tt::CBIndex index, std::uint32_t tiles) {
  tt::tt_metal::CreateCircularBuffer(
      program, cores,
      tt::tt_metal::CircularBufferConfig(tiles * kTileBytes, {{index, kFormat}})
          .set_page_size(index, kTileBytes));
}

// The reader on RISCV_1 (NCRISC), the writer on RISCV_0 (BRISC), each on its default NoC unless
// the example says otherwise.
DataMovementConfig reader_config(std::vector<std::uint32_t> compile_args,
                                 NOC noc = NOC::RISCV_1_default) {
  return {.processor = DataMovementProcessor::RISCV_1, .noc = noc, .compile_args = compile_args};
}
DataMovementConfig writer_config(std::vector<std::uint32_t> compile_args,
                                 NOC noc = NOC::RISCV_0_default) {
  return {.processor = DataMovementProcessor::RISCV_0, .noc = noc, .compile_args = compile_args};
}

// The CBs and the compute kernel both reuse examples share: in0 and in1 double-buffered by
// K-block, the output block in c_16, its partial sums in c_24 over the same L1.
void reuse_cbs_and_compute(Program& program, const Cores& cores, const SdkProblem& p,
                           const ReuseBlocking& b) {
  const std::uint32_t w = b.in0_block_w;
  add_cb(program, cores, tt::CBIndex::c_0, 2 * b.per_core_M * w);
  add_cb(program, cores, tt::CBIndex::c_1, 2 * b.per_core_N * w);
  const std::uint32_t out_tiles = b.per_core_M * b.per_core_N;
  tt::tt_metal::CreateCircularBuffer(
      program, cores,
      tt::tt_metal::CircularBufferConfig(
          out_tiles * kTileBytes, {{tt::CBIndex::c_16, kFormat}, {tt::CBIndex::c_24, kFormat}})
          .set_page_size(tt::CBIndex::c_16, kTileBytes)
          .set_page_size(tt::CBIndex::c_24, kTileBytes));
  const std::uint32_t in0_num_subblocks = b.per_core_M / b.out_subblock_h;
  const std::uint32_t in1_num_subblocks = b.per_core_N / b.out_subblock_w;
  const std::vector<std::uint32_t> args = {
      w,                                        // in0_block_w
      in0_num_subblocks,                        // in0_num_subblocks
      b.out_subblock_h * w * in0_num_subblocks, // in0_block_num_tiles
      b.out_subblock_h * w,                     // in0_subblock_num_tiles
      in1_num_subblocks,                        // in1_num_subblocks
      b.out_subblock_w * w * in1_num_subblocks, // in1_block_num_tiles
      b.out_subblock_w * in1_num_subblocks,     // in1_per_core_w
      p.Kt / w,                                 // num_blocks
      b.out_subblock_h,                         // out_subblock_h
      b.out_subblock_w,                         // out_subblock_w
      b.out_subblock_h * b.out_subblock_w};     // out_subblock_num_tiles
  tt::tt_metal::CreateKernel(program, kernel("compute/bmm_large_block_zm.cpp"), cores,
                             ComputeConfig{.math_fidelity = p.fidelity,
                                           .fp32_dest_acc_en = p.fp32_dest_acc_en,
                                           .compile_args = args});
}

// The 17 reader args of the output block (by, bx): in0's and in1's operand walks, K-block count.
std::vector<std::uint32_t> block_reader_args(const SdkProblem& p, const ReuseBlocking& b,
                                             std::uint32_t by, std::uint32_t bx) {
  const std::uint32_t w = b.in0_block_w;
  return {addr(p.a),
          p.Kt * b.per_core_M * by, // first tile: row by * per_core_M of A
          1,                        // stride_w
          p.Kt,                     // stride_h
          w,                        // next K-block
          w,                        // block_w
          b.per_core_M,             // block_h
          w * b.per_core_M,         // block tiles
          addr(p.b),
          b.per_core_N * bx, // first tile: column bx * per_core_N of B
          1,                 // stride_w
          p.Nt,              // stride_h
          w * p.Nt,          // next K-block
          b.per_core_N,      // block_w
          w,                 // block_h
          b.per_core_N * w,  // block tiles
          p.Kt / w};         // K-blocks
}

// The 11 writer args of the output block (by, bx).
std::vector<std::uint32_t> block_writer_args(const SdkProblem& p, const ReuseBlocking& b,
                                             std::uint32_t by, std::uint32_t bx) {
  return {addr(p.c),
          bx * b.per_core_N + by * b.per_core_M * p.Nt, // first tile of the block in C
          1,                                            // stride_w
          p.Nt,                                         // stride_h
          b.out_subblock_w,                             // next sub-block along w
          b.out_subblock_h * p.Nt,                      // next sub-block along h
          b.out_subblock_w,
          b.out_subblock_h,
          b.out_subblock_w * b.out_subblock_h,
          b.per_core_N / b.out_subblock_w,
          b.per_core_M / b.out_subblock_h};
}

} // namespace

// matmul_single_core: core (0,0) computes every output tile, row-major, one K tile at a time
// through double-buffered single-tile CBs.
void single_core_program(Program& program, const SdkProblem& p) {
  const CoreCoord core{0, 0};
  add_cb(program, core, tt::CBIndex::c_0, 2);
  add_cb(program, core, tt::CBIndex::c_1, 2);
  add_cb(program, core, tt::CBIndex::c_16, 2);
  const KernelHandle reader =
      tt::tt_metal::CreateKernel(program, kernel("dataflow/reader_single_core_mm.cpp"), core,
                                 reader_config(accessor_args({p.a, p.b})));
  const KernelHandle writer =
      tt::tt_metal::CreateKernel(program, kernel("dataflow/writer_single_core_mm.cpp"), core,
                                 writer_config(accessor_args({p.c})));
  tt::tt_metal::CreateKernel(program, kernel("compute/mm_single_core.cpp"), core,
                             ComputeConfig{.math_fidelity = p.fidelity,
                                           .fp32_dest_acc_en = p.fp32_dest_acc_en,
                                           .compile_args = {p.Mt, p.Kt, p.Nt}});
  tt::tt_metal::SetRuntimeArgs(program, reader, core, {addr(p.a), addr(p.b), p.Mt, p.Kt, p.Nt});
  tt::tt_metal::SetRuntimeArgs(program, writer, core, {addr(p.c), p.Mt, p.Nt});
}

// matmul_multi_core: split_work_to_cores spreads the Mt*Nt output tiles over the grid (column by
// column; group 1 takes one tile more than group 2 when the split is uneven); each core runs the
// single-core loop over its consecutive range of output tiles.
void multi_core_program(Program& program, const SdkProblem& p) {
  const auto [num_cores, all_cores, group_1, group_2, per_core_1, per_core_2] =
      tt::tt_metal::split_work_to_cores(p.grid, p.Mt * p.Nt);
  (void)num_cores;
  add_cb(program, all_cores, tt::CBIndex::c_0, 2);
  add_cb(program, all_cores, tt::CBIndex::c_1, 2);
  add_cb(program, all_cores, tt::CBIndex::c_16, 2);
  const KernelHandle reader =
      tt::tt_metal::CreateKernel(program, kernel("dataflow/reader_mm_output_tiles_partitioned.cpp"),
                                 all_cores, reader_config(accessor_args({p.a, p.b})));
  const KernelHandle writer =
      tt::tt_metal::CreateKernel(program, kernel("dataflow/writer_unary_interleaved_start_id.cpp"),
                                 all_cores, writer_config(accessor_args({p.c})));
  const KernelHandle compute = tt::tt_metal::CreateKernel(
      program, kernel("compute/mm_multi_core.cpp"), all_cores,
      ComputeConfig{.math_fidelity = p.fidelity, .fp32_dest_acc_en = p.fp32_dest_acc_en});
  std::uint32_t offset = 0;
  for (const auto& [group, per_core] :
       {std::pair{group_1, per_core_1}, std::pair{group_2, per_core_2}}) {
    for (const CoreRange& range : group.ranges()) {
      for (const CoreCoord core : range) {
        tt::tt_metal::SetRuntimeArgs(program, reader, core,
                                     {addr(p.a), addr(p.b), p.Mt, p.Kt, p.Nt, offset, per_core});
        tt::tt_metal::SetRuntimeArgs(program, writer, core, {addr(p.c), per_core, offset});
        tt::tt_metal::SetRuntimeArgs(program, compute, core, {per_core, p.Kt});
        offset += per_core;
      }
    }
  }
}

// matmul_multicore_reuse: output block (by, bx) on the core num_blocks_read-th in row-major order;
// each core reads its in0 row of blocks and in1 column of blocks from DRAM itself.
void reuse_program(Program& program, const SdkProblem& p, const ReuseBlocking& b) {
  const CoreRangeSet all_cores =
      tt::tt_metal::num_cores_to_corerangeset(b.num_blocks_y * b.num_blocks_x, p.grid, true);
  reuse_cbs_and_compute(program, all_cores, p, b);
  const KernelHandle reader =
      tt::tt_metal::CreateKernel(program, kernel("dataflow/reader_bmm_tile_layout.cpp"), all_cores,
                                 reader_config(accessor_args({p.a, p.b})));
  const KernelHandle writer =
      tt::tt_metal::CreateKernel(program, kernel("dataflow/writer_bmm_tile_layout.cpp"), all_cores,
                                 writer_config(accessor_args({p.c})));
  std::uint32_t num_blocks_read = 0;
  for (std::uint32_t by = 0; by < b.num_blocks_y; ++by) {
    for (std::uint32_t bx = 0; bx < b.num_blocks_x; ++bx, ++num_blocks_read) {
      const CoreCoord core{num_blocks_read % p.grid.x, num_blocks_read / p.grid.x};
      tt::tt_metal::SetRuntimeArgs(program, reader, core, block_reader_args(p, b, by, bx));
      tt::tt_metal::SetRuntimeArgs(program, writer, core, block_writer_args(p, b, by, bx));
    }
  }
}

// matmul_multicore_reuse_mcast: output block (y, x) on core (x, y). Per K-block the left column
// reads in0 from DRAM and multicasts it along its row, the top row reads in1 and multicasts it
// down its column; four reader variants, semaphores for the handshake (bmm_tile_layout.h).
void reuse_mcast_program(Program& program, distributed::MeshDevice& device, const SdkProblem& p,
                         const ReuseBlocking& b) {
  const std::size_t cols = b.num_blocks_x, rows = b.num_blocks_y;
  const CoreRange all_cores({0, 0}, {cols - 1, rows - 1});
  const CoreRange left_column({0, 0}, {0, rows - 1});
  const CoreRange all_except_left_column({1, 0}, {cols - 1, rows - 1});
  const CoreRange in0_sender_in1_sender({0, 0}, {0, 0});
  const CoreRange in0_sender_in1_receiver({0, 1}, {0, rows - 1});
  const CoreRange in0_receiver_in1_sender({1, 0}, {cols - 1, 0});
  const CoreRange in0_receiver_in1_receiver({1, 1}, {cols - 1, rows - 1});

  reuse_cbs_and_compute(program, all_cores, p, b);
  const std::vector<std::uint32_t> reader_args = accessor_args({p.a, p.b});
  auto reader = [&](const char* variant, const CoreRange& cores, NOC noc) {
    return tt::tt_metal::CreateKernel(
        program, kernel(std::string("dataflow/reader_bmm_tile_layout_") + variant + ".cpp"), cores,
        reader_config(reader_args, noc));
  };
  // The in0 senders (left column) multicast on NOC 0, the other readers use NOC 1; the left
  // column's writers take NOC 1, the others NOC 0.
  const KernelHandle reader_ss =
      reader("in0_sender_in1_sender", in0_sender_in1_sender, NOC::RISCV_0_default);
  const KernelHandle reader_sr =
      reader("in0_sender_in1_receiver", in0_sender_in1_receiver, NOC::RISCV_0_default);
  const KernelHandle reader_rs =
      reader("in0_receiver_in1_sender", in0_receiver_in1_sender, NOC::RISCV_1_default);
  const KernelHandle reader_rr =
      reader("in0_receiver_in1_receiver", in0_receiver_in1_receiver, NOC::RISCV_1_default);
  const std::vector<std::uint32_t> writer_args = accessor_args({p.c});
  const KernelHandle writer_noc0 =
      tt::tt_metal::CreateKernel(program, kernel("dataflow/writer_bmm_tile_layout.cpp"),
                                 all_except_left_column, writer_config(writer_args));
  const KernelHandle writer_noc1 =
      tt::tt_metal::CreateKernel(program, kernel("dataflow/writer_bmm_tile_layout.cpp"),
                                 left_column, writer_config(writer_args, NOC::RISCV_1_default));

  const detail::GridMcasts mcasts(program, device, cols, rows);

  for (std::size_t y = 0; y < rows; ++y) {
    for (std::size_t x = 0; x < cols; ++x) {
      const CoreCoord core{x, y};
      // The left column's readers on NOC 0, the others' on NOC 1 (RISCV_1's default).
      const bool reader_noc_1 = x != 0;
      std::vector<std::uint32_t> args =
          block_reader_args(p, b, static_cast<std::uint32_t>(y), static_cast<std::uint32_t>(x));
      // in0 along the row, from the left column; in1 down the column, from the top row.
      mcasts.push_in0(args, y, reader_noc_1);
      mcasts.push_in1(args, x, reader_noc_1);
      const KernelHandle reader_kernel =
          x == 0 ? (y == 0 ? reader_ss : reader_sr) : (y == 0 ? reader_rs : reader_rr);
      tt::tt_metal::SetRuntimeArgs(program, reader_kernel, core, args);
      tt::tt_metal::SetRuntimeArgs(
          program, x == 0 ? writer_noc1 : writer_noc0, core,
          block_writer_args(p, b, static_cast<std::uint32_t>(y), static_cast<std::uint32_t>(x)));
    }
  }
}

} // namespace tk::baselines
