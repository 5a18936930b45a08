// Host programs of the SDK's four matmul programming examples, one function each, on the real
// TT-Metalium host API; the block-size choice of the reuse examples (bmm_op.hpp's
// get_large_matmul_params); the double reference and the bf16 check.
#include "baselines/matmul.hpp"
#include "baselines/matmul_ttnn.hpp"

#include "arch/arch.hpp"

#include <tk_emulator/emulator.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <variant>

#include <hostdevcommon/common_values.hpp>
#include <tt-metalium/bfloat4.hpp>
#include <tt-metalium/bfloat8.hpp>
#include <tt-metalium/constants.hpp>
#include <tt-metalium/distributed.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>
#include <tt-metalium/tilize_utils.hpp>
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

constexpr std::uint32_t kTileBytes = sizeof(bfloat16) * TILE_HW; // one bf16 tile: 2048 B
constexpr tt::DataFormat kFormat = tt::DataFormat::Float16_b;

std::string kernel(std::string_view rel) {
  return std::string(TK_BASELINES_KERNEL_DIR) + "/" + std::string(rel);
}

std::string dims(std::uint32_t a, std::uint32_t b) {
  return std::to_string(a) + "x" + std::to_string(b);
}

std::string shape_str(MatmulShape s) {
  return std::to_string(s.M) + "x" + std::to_string(s.K) + "x" + std::to_string(s.N);
}

void check_shape(std::string_view algo, MatmulShape s) {
  for (std::uint32_t d : {s.M, s.K, s.N}) {
    if (d == 0 || d % TILE_WIDTH != 0) {
      throw std::invalid_argument(std::string(algo) +
                                  ": M, K and N must be positive multiples of 32 (the tile size); "
                                  "got MxKxN = " +
                                  shape_str(s));
    }
  }
}

// ---- Block sizes of the reuse examples (bmm_op.hpp in matmul_common)
// -----------------------------

// Every core's CBs hold 2 in0 blocks, 2 in1 blocks and the output block: at most 400 tiles.
constexpr std::int32_t kBlockBudgetTiles = 400;

// get_maximum_block_dim: the largest other block dimension that fits the budget beside `dim`.
std::uint32_t max_block_dim(std::int32_t dim, std::int32_t in0_block_w) {
  const std::int32_t other = (kBlockBudgetTiles - 2 * in0_block_w * dim) / (2 * in0_block_w + dim);
  return other > 0 ? static_cast<std::uint32_t>(other) : 0;
}

bool fits_budget(std::uint32_t per_core_M, std::uint32_t per_core_N, std::uint32_t in0_block_w) {
  return 2 * in0_block_w * (per_core_M + per_core_N) + per_core_M * per_core_N <=
         static_cast<std::uint32_t>(kBlockBudgetTiles);
}

// get_prime_factors: ascending, with multiplicity.
std::vector<std::uint32_t> prime_factors(std::uint32_t n) {
  std::vector<std::uint32_t> f;
  for (std::uint32_t p = 2; p * p <= n; ++p) {
    for (; n % p == 0; n /= p)
      f.push_back(p);
  }
  if (n > 1)
    f.push_back(n);
  return f;
}

// get_possible_products: the distinct products of non-empty sub-multisets of `factors`,
// ascending; {1} when there are none.
std::vector<std::uint32_t> possible_products(const std::vector<std::uint32_t>& factors) {
  if (factors.empty())
    return {1};
  std::set<std::uint32_t> products;
  for (std::uint32_t f : factors) {
    std::set<std::uint32_t> next = products;
    next.insert(f);
    for (std::uint32_t p : products)
      next.insert(p * f);
    products = std::move(next);
  }
  return {products.begin(), products.end()};
}

// SUBBLOCK_HW_CHOICES: (out_subblock_h, out_subblock_w), the SDK's list, largest first; only the
// choices within a DST half apply (arch::ArchSpec::dst_tiles, by fp32_dest_acc_en).
constexpr std::array<std::pair<std::uint32_t, std::uint32_t>, 20> kSubblockChoices = {{
    {4, 2}, {2, 4}, {8, 1}, {1, 8}, {7, 1}, {1, 7}, {3, 2}, {2, 3}, {6, 1}, {1, 6},
    {5, 1}, {1, 5}, {2, 2}, {4, 1}, {1, 4}, {3, 1}, {1, 3}, {2, 1}, {1, 2}, {1, 1},
}};

ReuseBlocking with_subblock(std::uint32_t Mt, std::uint32_t Nt, std::uint32_t per_core_M,
                            std::uint32_t per_core_N, std::uint32_t in0_block_w,
                            std::uint32_t max_subblock_tiles) {
  ReuseBlocking b;
  b.in0_block_w = in0_block_w;
  b.per_core_M = per_core_M;
  b.per_core_N = per_core_N;
  b.num_blocks_y = Mt / per_core_M;
  b.num_blocks_x = Nt / per_core_N;
  for (const auto& [h, w] : kSubblockChoices) { // (1, 1) always matches
    if (h * w <= max_subblock_tiles && per_core_M % h == 0 && per_core_N % w == 0) {
      b.out_subblock_h = h;
      b.out_subblock_w = w;
      break;
    }
  }
  return b;
}

// bmm_op_utils::get_large_matmul_params: per_core_M, per_core_N and the sub-block for Mt x Nt
// output tiles on num_cores_y x num_cores_x cores, or nothing (the SDK's {0, 0, 0, 0}).
std::optional<ReuseBlocking> large_matmul_params(std::uint32_t Mt, std::uint32_t Nt,
                                                 std::uint32_t num_cores_y,
                                                 std::uint32_t num_cores_x,
                                                 std::uint32_t in0_block_w,
                                                 std::uint32_t max_subblock_tiles) {
  const auto w = static_cast<std::int32_t>(in0_block_w);
  // A prime factor larger than the grid's side cannot be spread over cores: every block keeps it.
  auto split_off = [](std::vector<std::uint32_t>& factors, std::uint32_t cores) {
    std::uint32_t kept = 1;
    std::erase_if(factors, [&](std::uint32_t f) {
      if (f <= cores)
        return false;
      kept *= f;
      return true;
    });
    return kept;
  };
  std::vector<std::uint32_t> n_factors = prime_factors(Nt), m_factors = prime_factors(Mt);
  const std::uint32_t npc_min = split_off(n_factors, num_cores_x);
  const std::uint32_t mpc_min = split_off(m_factors, num_cores_y);
  if (npc_min > max_block_dim(static_cast<std::int32_t>(mpc_min), w))
    return std::nullopt;

  std::uint32_t mpc = mpc_min, npc = npc_min;
  auto fits_grid = [&](std::uint32_t m, std::uint32_t n) {
    return Mt / m <= num_cores_y && Nt / n <= num_cores_x;
  };
  if (mpc_min > 1) { // grow per_core_N as far as the budget allows
    const std::uint32_t npc_max = max_block_dim(static_cast<std::int32_t>(mpc_min), w);
    for (std::uint32_t p : possible_products(n_factors)) {
      if (p * npc_min > npc_max)
        break;
      npc = p * npc_min;
    }
    if (!fits_grid(mpc, npc))
      return std::nullopt;
    return with_subblock(Mt, Nt, mpc, npc, in0_block_w, max_subblock_tiles);
  }
  if (npc_min > 1) { // grow per_core_M
    const std::uint32_t mpc_max = max_block_dim(static_cast<std::int32_t>(npc_min), w);
    for (std::uint32_t p : possible_products(m_factors)) {
      if (p * mpc_min > mpc_max)
        break;
      mpc = p * mpc_min;
    }
    if (!fits_grid(mpc, npc))
      return std::nullopt;
    return with_subblock(Mt, Nt, mpc, npc, in0_block_w, max_subblock_tiles);
  }
  // Neither is forced: for each per_core_N from the smallest, the largest per_core_M the budget
  // allows (kept from the previous per_core_N when none fits, as the SDK's loop does), until the
  // blocks fit on the grid.
  const std::vector<std::uint32_t> m_choices = possible_products(m_factors);
  for (std::uint32_t n : possible_products(n_factors)) {
    const std::uint32_t mpc_max = max_block_dim(static_cast<std::int32_t>(n), w);
    for (std::uint32_t m : m_choices) {
      if (m <= mpc_max)
        mpc = m;
    }
    if (fits_grid(mpc, n))
      return with_subblock(Mt, Nt, mpc, n, in0_block_w, max_subblock_tiles);
  }
  return std::nullopt;
}

std::vector<std::uint32_t> divisors(std::uint32_t n) {
  std::vector<std::uint32_t> d;
  for (std::uint32_t i = 1; i <= n; ++i) {
    if (n % i == 0)
      d.push_back(i);
  }
  return d;
}

// reuse_mcast needs a sender column and row plus receivers: at least 2 x 2 blocks. When the SDK's
// choice gives fewer (it favours tall blocks: up to 512 x 512 it yields one row of cores, where the
// SDK example's core ranges would be empty), the blocks that use the most cores (then the taller)
// within the same L1 budget, making 2..rows x 2..columns blocks: a yardstick should use the device,
// as ttnn's multicast matmuls spread the output over the whole grid.
std::optional<ReuseBlocking> mcast_fallback(std::uint32_t Mt, std::uint32_t Nt,
                                            std::uint32_t num_cores_y, std::uint32_t num_cores_x,
                                            std::uint32_t in0_block_w,
                                            std::uint32_t max_subblock_tiles) {
  std::optional<std::pair<std::uint32_t, std::uint32_t>> best;
  for (std::uint32_t m : divisors(Mt)) {
    for (std::uint32_t n : divisors(Nt)) {
      const std::uint32_t by = Mt / m, bx = Nt / n;
      if (by < 2 || bx < 2 || by > num_cores_y || bx > num_cores_x ||
          !fits_budget(m, n, in0_block_w))
        continue;
      const std::uint32_t blocks = by * bx;
      const std::uint32_t best_blocks = best ? (Mt / best->first) * (Nt / best->second) : 0;
      if (blocks > best_blocks || (blocks == best_blocks && m > best->first))
        best = {m, n};
    }
  }
  if (!best)
    return std::nullopt;
  ReuseBlocking b =
      with_subblock(Mt, Nt, best->first, best->second, in0_block_w, max_subblock_tiles);
  b.chosen_by = ReuseBlocking::ChosenBy::mcast_fallback;
  return b;
}

// BlockRule::ttnn, as tests/ttnn/unit_tests/benchmarks/test_benchmark.py sets its program config
// for a shape on the grid: one block per core, in0_block_w = Kt / columns / in0_block_w_div. The
// benchmark lists its div per shape; here it is the smallest power of two whose CBs (two in0 and
// two in1 blocks, the output block) fit in L1. The benchmark's num_out_blocks (an output block
// computed in parts, re-reading its in0 and in1 blocks) is not ported: where it splits the
// 4096^3 output 2 x 2 with div 1, this rule keeps the whole block and takes div 4.
ReuseBlocking ttnn_blocking(const std::string& name, std::uint32_t Mt, std::uint32_t Kt,
                            std::uint32_t Nt, std::uint32_t cores_y, std::uint32_t cores_x,
                            bool fp32_dest_acc_en, const arch::ArchSpec& a) {
  // The L1 a core's CBs may use: the L1 above the first address the allocator hands out
  // (firmware, mailboxes and the kernel-config ring lie below it), from the device's architecture.
  // ttnn's get_max_l1_space is the same difference, read from the device's allocator.
  const std::uint32_t l1_cb_bytes = a.l1_cb_budget();
  const std::uint32_t max_subblock_tiles = a.dst_tiles(fp32_dest_acc_en);
  if (Mt % cores_y != 0 || Nt % cores_x != 0 || Kt % cores_x != 0) {
    throw std::invalid_argument(
        name + ": ttnn's block rule needs M/32 divisible by the grid's rows and K/32 and N/32 by " +
        "its columns (one block per core); got " + dims(Mt, Kt) + "x" + std::to_string(Nt) +
        " tiles (MxKxN) on a " + dims(cores_x, cores_y) + " grid (x by y)");
  }
  const std::uint32_t pcm = Mt / cores_y, pcn = Nt / cores_x;
  std::uint32_t w = Kt / cores_x;
  while (2 * w * (pcm + pcn) + pcm * pcn > l1_cb_bytes / kTileBytes) {
    if (w % 2 != 0) {
      throw std::invalid_argument(
          name + ": ttnn's block rule finds no in0_block_w for " + dims(pcm, pcn) +
          " tiles per core: 2*in0_block_w*(per_core_M + per_core_N) + per_core_M*per_core_N " +
          "tiles must fit the " + std::to_string(l1_cb_bytes) + " B of L1 for CBs");
    }
    w /= 2;
  }
  ReuseBlocking b = with_subblock(Mt, Nt, pcm, pcn, w, max_subblock_tiles);
  b.chosen_by = ReuseBlocking::ChosenBy::ttnn;
  return b;
}

CoreCoord resolve_grid(const distributed::MeshDevice& device, CoreCoord grid) {
  const CoreCoord full = device.compute_with_storage_grid_size();
  if (grid.x == 0 && grid.y == 0)
    return full;
  if (grid.x == 0 || grid.y == 0 || grid.x > full.x || grid.y > full.y) {
    throw std::invalid_argument("matmul: the grid must be 1.." + dims(full.x, full.y) +
                                " (x columns by y rows) or 0x0 for the whole device; got " +
                                dims(grid.x, grid.y));
  }
  return grid;
}

// ---- Host programs ------------------------------------------------------------------------------

struct Problem {
  std::uint32_t Mt, Kt, Nt;
  BufferPtr a, b, c;
  MathFidelity fidelity;
  bool fp32_dest_acc_en;
  CoreCoord grid;
};

std::uint32_t addr(const BufferPtr& b) {
  return static_cast<std::uint32_t>(b->address());
}

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

// matmul_single_core: core (0,0) computes every output tile, row-major, one K tile at a time
// through double-buffered single-tile CBs.
void single_core(Program& program, const Problem& p) {
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
void multi_core(Program& program, const Problem& p) {
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

// The CBs and the compute kernel both reuse examples share: in0 and in1 double-buffered by
// K-block, the output block in c_16, its partial sums in c_24 over the same L1.
void reuse_cbs_and_compute(Program& program, const Cores& cores, const Problem& p,
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
std::vector<std::uint32_t> block_reader_args(const Problem& p, const ReuseBlocking& b,
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
std::vector<std::uint32_t> block_writer_args(const Problem& p, const ReuseBlocking& b,
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

// matmul_multicore_reuse: output block (by, bx) on the core num_blocks_read-th in row-major order;
// each core reads its in0 row of blocks and in1 column of blocks from DRAM itself.
void reuse(Program& program, const Problem& p, const ReuseBlocking& b) {
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
void reuse_mcast(Program& program, distributed::MeshDevice& device, const Problem& p,
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

  const std::uint32_t in0_sender_sem = tt::tt_metal::CreateSemaphore(program, all_cores, INVALID);
  const std::uint32_t in0_receiver_sem = tt::tt_metal::CreateSemaphore(program, all_cores, INVALID);
  const std::uint32_t in1_sender_sem = tt::tt_metal::CreateSemaphore(program, all_cores, INVALID);
  const std::uint32_t in1_receiver_sem = tt::tt_metal::CreateSemaphore(program, all_cores, INVALID);

  for (std::size_t y = 0; y < rows; ++y) {
    for (std::size_t x = 0; x < cols; ++x) {
      const CoreCoord core{x, y};
      const NOC reader_noc = x == 0 ? NOC::RISCV_0_default : NOC::RISCV_1_default;
      auto noc_xy = [&](CoreCoord logical) {
        return device.worker_core_from_logical_core(logical);
      };
      // The receivers' rectangle, from the corner the reader's NoC starts at (NOC 1 runs from
      // the largest corner).
      auto push_mcast = [&](std::vector<std::uint32_t>& args, CoreCoord first, CoreCoord last,
                            std::uint32_t num_dests, CoreCoord sender, std::uint32_t sender_sem,
                            std::uint32_t receiver_sem) {
        CoreCoord start = noc_xy(first), end = noc_xy(last);
        if (reader_noc == NOC::RISCV_1_default)
          std::swap(start, end);
        const CoreCoord s = noc_xy(sender);
        for (std::size_t v : {start.x, start.y, end.x, end.y})
          args.push_back(static_cast<std::uint32_t>(v));
        args.insert(args.end(), {num_dests, static_cast<std::uint32_t>(s.x),
                                 static_cast<std::uint32_t>(s.y), sender_sem, receiver_sem});
      };
      std::vector<std::uint32_t> args =
          block_reader_args(p, b, static_cast<std::uint32_t>(y), static_cast<std::uint32_t>(x));
      // in0 along the row, from the left column; in1 down the column, from the top row.
      push_mcast(args, {1, y}, {cols - 1, y}, static_cast<std::uint32_t>(cols - 1), {0, y},
                 in0_sender_sem, in0_receiver_sem);
      push_mcast(args, {x, 1}, {x, rows - 1}, static_cast<std::uint32_t>(rows - 1), {x, 0},
                 in1_sender_sem, in1_receiver_sem);
      const KernelHandle reader_kernel =
          x == 0 ? (y == 0 ? reader_ss : reader_sr) : (y == 0 ? reader_rs : reader_rr);
      tt::tt_metal::SetRuntimeArgs(program, reader_kernel, core, args);
      tt::tt_metal::SetRuntimeArgs(
          program, x == 0 ? writer_noc1 : writer_noc0, core,
          block_writer_args(p, b, static_cast<std::uint32_t>(y), static_cast<std::uint32_t>(x)));
    }
  }
}

} // namespace

std::string_view to_string(MatmulAlgo algo) {
  switch (algo) {
  case MatmulAlgo::single_core:
    return "single_core";
  case MatmulAlgo::multi_core:
    return "multi_core";
  case MatmulAlgo::reuse:
    return "reuse";
  case MatmulAlgo::reuse_mcast:
    return "reuse_mcast";
  case MatmulAlgo::ttnn_mcast:
    return "ttnn_mcast";
  }
  return "?";
}

std::optional<MatmulAlgo> parse_matmul_algo(std::string_view name) {
  for (MatmulAlgo a : kMatmulAlgos) {
    if (to_string(a) == name)
      return a;
  }
  if (name == to_string(MatmulAlgo::ttnn_mcast))
    return MatmulAlgo::ttnn_mcast;
  return std::nullopt;
}

std::string_view to_string(MathFidelity fidelity) {
  switch (fidelity) {
  case MathFidelity::LoFi:
    return "LoFi";
  case MathFidelity::HiFi2:
    return "HiFi2";
  case MathFidelity::HiFi3:
    return "HiFi3";
  case MathFidelity::HiFi4:
    return "HiFi4";
  default:
    return "?";
  }
}

std::optional<MathFidelity> parse_math_fidelity(std::string_view name) {
  for (MathFidelity f :
       {MathFidelity::LoFi, MathFidelity::HiFi2, MathFidelity::HiFi3, MathFidelity::HiFi4}) {
    if (to_string(f) == name)
      return f;
  }
  return std::nullopt;
}

std::string_view to_string(BlockRule rule) {
  return rule == BlockRule::ttnn ? "ttnn" : "sdk";
}

std::optional<BlockRule> parse_block_rule(std::string_view name) {
  for (BlockRule r : {BlockRule::sdk, BlockRule::ttnn}) {
    if (to_string(r) == name)
      return r;
  }
  return std::nullopt;
}

ReuseBlocking choose_reuse_blocking(MatmulAlgo algo, MatmulShape shape, CoreCoord grid,
                                    bool fp32_dest_acc_en, BlockRule rule,
                                    const arch::ArchSpec& a) {
  const std::string name(to_string(algo));
  if (algo != MatmulAlgo::reuse && algo != MatmulAlgo::reuse_mcast)
    throw std::invalid_argument(name + ": has no blocks (only reuse and reuse_mcast do)");
  check_shape(name, shape);
  const std::uint32_t Mt = shape.M / TILE_HEIGHT, Kt = shape.K / TILE_WIDTH,
                      Nt = shape.N / TILE_WIDTH;
  const auto cores_x = static_cast<std::uint32_t>(grid.x),
             cores_y = static_cast<std::uint32_t>(grid.y);
  const std::uint32_t max_subblock_tiles = a.dst_tiles(fp32_dest_acc_en);
  if (rule == BlockRule::ttnn) {
    const ReuseBlocking b = ttnn_blocking(name, Mt, Kt, Nt, cores_y, cores_x, fp32_dest_acc_en, a);
    if (algo == MatmulAlgo::reuse_mcast && (b.num_blocks_y < 2 || b.num_blocks_x < 2)) {
      throw std::invalid_argument(name + ": needs at least 2x2 output blocks (a sender column " +
                                  "and row, and receivers); ttnn's block rule on a " +
                                  dims(cores_x, cores_y) + " grid gives " +
                                  dims(b.num_blocks_x, b.num_blocks_y));
    }
    return b;
  }
  constexpr std::uint32_t in0_block_w = 2; // the SDK examples' fixed inner block
  if (Kt % in0_block_w != 0) {
    throw std::invalid_argument(name + ": K/32 must be a multiple of in0_block_w = 2 (K a " +
                                "multiple of 64); got K = " + std::to_string(shape.K));
  }
  const std::optional<ReuseBlocking> sdk =
      large_matmul_params(Mt, Nt, cores_y, cores_x, in0_block_w, max_subblock_tiles);
  const std::string budget = "2*in0_block_w*(per_core_M + per_core_N) + per_core_M*per_core_N "
                             "<= 400 tiles of CBs per core";
  if (algo == MatmulAlgo::reuse) {
    if (!sdk) {
      throw std::invalid_argument(
          name + ": get_large_matmul_params finds no per_core_M x per_core_N blocks for Mt x Nt " +
          "= " + dims(Mt, Nt) + " output tiles on a " + dims(cores_x, cores_y) +
          " grid (x by y): each block keeps the prime factors of Mt larger than the grid's rows " +
          "and of Nt larger than its columns, at most one block per core, and " + budget);
    }
    return *sdk;
  }
  if (sdk && sdk->num_blocks_y >= 2 && sdk->num_blocks_x >= 2)
    return *sdk;
  const std::optional<ReuseBlocking> fallback =
      mcast_fallback(Mt, Nt, cores_y, cores_x, in0_block_w, max_subblock_tiles);
  if (!fallback) {
    throw std::invalid_argument(
        name + ": needs at least 2x2 output blocks (a sender column and row, and receivers): no " +
        "per_core_M dividing Mt = " + std::to_string(Mt) + " and per_core_N dividing Nt = " +
        std::to_string(Nt) + " give 2.." + std::to_string(cores_y) + " block rows and 2.." +
        std::to_string(cores_x) + " block columns with " + budget);
  }
  return *fallback;
}

std::string describe_plan(const distributed::MeshDevice& device, MatmulAlgo algo, MatmulShape shape,
                          const MatmulOptions& options) {
  const std::string name(to_string(algo));
  check_shape(name, shape);
  const CoreCoord grid = resolve_grid(device, options.grid);
  const std::uint32_t Mt = shape.M / TILE_HEIGHT, Kt = shape.K / TILE_WIDTH,
                      Nt = shape.N / TILE_WIDTH;
  std::ostringstream out;
  out << name << " " << shape_str(shape) << ": ";
  switch (algo) {
  case MatmulAlgo::single_core:
    out << Mt * Nt << " output tiles on core (0,0), " << Kt << " K tiles each";
    break;
  case MatmulAlgo::multi_core: {
    const auto [num_cores, all, g1, g2, per_core_1, per_core_2] =
        tt::tt_metal::split_work_to_cores(grid, Mt * Nt);
    out << Mt * Nt << " output tiles on " << num_cores << " cores (" << g1.num_cores() << " x "
        << per_core_1;
    if (!g2.empty())
      out << ", " << g2.num_cores() << " x " << per_core_2;
    out << "), " << Kt << " K tiles each";
    break;
  }
  case MatmulAlgo::reuse:
  case MatmulAlgo::reuse_mcast: {
    const ReuseBlocking b = choose_reuse_blocking(algo, shape, grid, options.fp32_dest_acc_en,
                                                  options.blocks, tk::rt::emu::device_arch(device));
    out << b.num_blocks_y << "x" << b.num_blocks_x << " blocks of " << b.per_core_M << "x"
        << b.per_core_N << " tiles (one per core), in0_block_w " << b.in0_block_w << " ("
        << Kt / b.in0_block_w << " K-blocks), sub-blocks " << b.out_subblock_h << "x"
        << b.out_subblock_w
        << (b.chosen_by == ReuseBlocking::ChosenBy::sdk    ? " (get_large_matmul_params)"
            : b.chosen_by == ReuseBlocking::ChosenBy::ttnn ? " (ttnn's benchmark rule)"
                                                           : " (fallback: at least 2x2 blocks)");
    break;
  }
  case MatmulAlgo::ttnn_mcast: {
    const TtnnConfig c = ttnn_config(shape, grid, options, tk::rt::emu::device_arch(device));
    out << c.num_blocks_y << "x" << c.num_blocks_x << " blocks of " << c.per_core_M << "x"
        << c.per_core_N << " tiles (one per core) in out blocks of " << c.out_block_h << "x"
        << c.out_block_w << ", in0_block_w " << c.in0_block_w << " (" << Kt / c.in0_block_w
        << " K-blocks), sub-blocks " << c.out_subblock_h << "x" << c.out_subblock_w
        << ", packer L1 accumulation ("
        << (options.in0_block_w_div == 0 ? "ttnn's automatic config" : "ttnn's benchmark config")
        << ")";
    break;
  }
  }
  return out.str();
}

std::vector<float> run_matmul(distributed::MeshDevice& device, MatmulAlgo algo, MatmulShape shape,
                              const std::vector<bfloat16>& a, const std::vector<bfloat16>& b,
                              const MatmulOptions& options) {
  const std::string name(to_string(algo));
  check_shape(name, shape);
  const tt::DataFormat format = options.data_format;
  if (format != tt::DataFormat::Float16_b &&
      !(algo == MatmulAlgo::ttnn_mcast &&
        (format == tt::DataFormat::Bfp8_b || format == tt::DataFormat::Bfp4_b)))
    throw std::invalid_argument(name +
                                ": A, B and C are Float16_b (ttnn_mcast: or Bfp8_b, Bfp4_b) here");
  if (a.size() != std::size_t{shape.M} * shape.K || b.size() != std::size_t{shape.K} * shape.N) {
    throw std::invalid_argument(name + ": A must hold M*K and B K*N values for " +
                                shape_str(shape));
  }
  Problem p{.Mt = shape.M / TILE_HEIGHT,
            .Kt = shape.K / TILE_WIDTH,
            .Nt = shape.N / TILE_WIDTH,
            .a = {},
            .b = {},
            .c = {},
            .fidelity = options.fidelity,
            .fp32_dest_acc_en = options.fp32_dest_acc_en,
            .grid = resolve_grid(device, options.grid)};
  std::optional<ReuseBlocking> blocking;
  if (algo == MatmulAlgo::reuse || algo == MatmulAlgo::reuse_mcast)
    blocking = choose_reuse_blocking(algo, shape, p.grid, options.fp32_dest_acc_en, options.blocks,
                                     tk::rt::emu::device_arch(device)); // may throw
  std::optional<TtnnConfig> ttnn;
  if (algo == MatmulAlgo::ttnn_mcast)
    ttnn = ttnn_config(shape, p.grid, options, tk::rt::emu::device_arch(device)); // may throw

  const std::uint32_t tile_bytes = tt::tile_size(format);
  auto dram = [&](std::uint32_t tiles) {
    return distributed::MeshBuffer::create(
        distributed::ReplicatedBufferConfig{.size = tiles * tile_bytes},
        distributed::DeviceLocalBufferConfig{.page_size = tile_bytes,
                                             .buffer_type = BufferType::DRAM},
        &device);
  };
  p.a = dram(p.Mt * p.Kt);
  p.b = dram(p.Kt * p.Nt);
  p.c = dram(p.Mt * p.Nt);
  distributed::MeshCommandQueue& cq = device.mesh_command_queue();
  const bool bfp8 = format == tt::DataFormat::Bfp8_b, bfp4 = format == tt::DataFormat::Bfp4_b;
  auto write = [&](auto& buffer, const std::vector<bfloat16>& m, std::uint32_t rows,
                   std::uint32_t cols) {
    const std::vector<bfloat16> tiled = tilize_nfaces(m, rows, cols);
    if (bfp8) // tiles in face order, packed to Bfp8_b pages as ttnn.from_torch(dtype=bfloat8_b)
      distributed::EnqueueWriteMeshBuffer(
          cq, buffer, pack_as_bfp8_tiles(ttsl::Span<const bfloat16>(tiled), false, false), false);
    else if (bfp4) // and to Bfp4_b pages as ttnn.from_torch(dtype=bfloat4_b)
      distributed::EnqueueWriteMeshBuffer(
          cq, buffer, pack_as_bfp4_tiles(ttsl::Span<const bfloat16>(tiled), false, false), false);
    else
      distributed::EnqueueWriteMeshBuffer(cq, buffer, tiled, false);
  };
  write(p.a, a, shape.M, shape.K);
  write(p.b, b, shape.K, shape.N);

  Program program = tt::tt_metal::CreateProgram();
  switch (algo) {
  case MatmulAlgo::single_core:
    single_core(program, p);
    break;
  case MatmulAlgo::multi_core:
    multi_core(program, p);
    break;
  case MatmulAlgo::reuse:
    reuse(program, p, *blocking);
    break;
  case MatmulAlgo::reuse_mcast:
    reuse_mcast(program, device, p, *blocking);
    break;
  case MatmulAlgo::ttnn_mcast:
    ttnn_mcast_program(program, device, p.Mt, p.Kt, p.Nt, p.a, p.b, p.c, options, *ttnn);
    break;
  }
  distributed::MeshWorkload workload;
  workload.add_program(distributed::MeshCoordinateRange(device.shape()), std::move(program));
  distributed::EnqueueMeshWorkload(cq, workload, false);
  if (bfp8 || bfp4) {
    std::vector<std::uint32_t> words;
    distributed::EnqueueReadMeshBuffer(cq, words, p.c, true);
    const ttsl::Span<const std::uint32_t> span(words);
    return untilize_nfaces(bfp8 ? unpack_bfp8_tiles_into_float_vec(span, false, false)
                                : unpack_bfp4_tiles_into_float_vec(span, false, false),
                           shape.M, shape.N);
  }
  std::vector<bfloat16> tiled;
  distributed::EnqueueReadMeshBuffer(cq, tiled, p.c, true);
  const std::vector<bfloat16> c = untilize_nfaces(tiled, shape.M, shape.N);
  std::vector<float> out(c.size());
  std::transform(c.begin(), c.end(), out.begin(), [](bfloat16 v) { return static_cast<float>(v); });
  return out;
}

std::vector<bfloat16> quantize_bfp8(const std::vector<bfloat16>& m, std::uint32_t rows,
                                    std::uint32_t cols) {
  const std::vector<bfloat16> tiled = tilize_nfaces(m, rows, cols);
  const std::vector<std::uint32_t> packed =
      pack_as_bfp8_tiles(ttsl::Span<const bfloat16>(tiled), false, false);
  const std::vector<float> values = untilize_nfaces(
      unpack_bfp8_tiles_into_float_vec(ttsl::Span<const std::uint32_t>(packed), false, false), rows,
      cols);
  std::vector<bfloat16> out(values.size());
  std::transform(values.begin(), values.end(), out.begin(), [](float v) { return bfloat16(v); });
  return out;
}

std::vector<bfloat16> quantize_bfp4(const std::vector<bfloat16>& m, std::uint32_t rows,
                                    std::uint32_t cols) {
  const std::vector<bfloat16> tiled = tilize_nfaces(m, rows, cols);
  const std::vector<std::uint32_t> packed =
      pack_as_bfp4_tiles(ttsl::Span<const bfloat16>(tiled), false, false);
  const std::vector<float> values = untilize_nfaces(
      unpack_bfp4_tiles_into_float_vec(ttsl::Span<const std::uint32_t>(packed), false, false), rows,
      cols);
  std::vector<bfloat16> out(values.size());
  std::transform(values.begin(), values.end(), out.begin(), [](float v) { return bfloat16(v); });
  return out;
}

std::vector<double> reference_matmul(MatmulShape s, const std::vector<bfloat16>& a,
                                     const std::vector<bfloat16>& b) {
  std::vector<double> bd(b.size());
  std::transform(b.begin(), b.end(), bd.begin(),
                 [](bfloat16 v) { return static_cast<double>(static_cast<float>(v)); });
  std::vector<double> c(std::size_t{s.M} * s.N, 0.0);
  for (std::size_t i = 0; i < s.M; ++i) {
    double* row = &c[i * s.N];
    for (std::size_t k = 0; k < s.K; ++k) {
      const double aik = static_cast<float>(a[i * s.K + k]);
      const double* brow = &bd[k * s.N];
      for (std::size_t j = 0; j < s.N; ++j)
        row[j] += aik * brow[j];
    }
  }
  return c;
}

std::vector<bfloat16> random_bf16_matrix(std::size_t rows, std::size_t cols, std::uint64_t seed,
                                         float lo, float hi) {
  std::mt19937_64 rng(seed);
  std::vector<bfloat16> m(rows * cols);
  for (bfloat16& v : m) {
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53; // [0, 1), written out
    v = bfloat16(static_cast<float>(lo + (hi - lo) * u));
  }
  return m;
}

namespace {
MatmulCheck check_block_float(const std::vector<float>& got, const std::vector<double>& ref,
                              std::uint32_t cols, int magnitude_bits, double min_pcc);
} // namespace

MatmulCheck check_bf16(const std::vector<float>& got, const std::vector<double>& ref) {
  return check_block_float(got, ref, 0, 7, kMinPcc);
}

MatmulCheck check_bfp8(const std::vector<float>& got, const std::vector<double>& ref,
                       std::uint32_t cols) {
  return check_block_float(got, ref, cols, 7, kMinPcc);
}

MatmulCheck check_bfp4(const std::vector<float>& got, const std::vector<double>& ref,
                       std::uint32_t cols) {
  return check_block_float(got, ref, cols, 3, kMinPccBfp4);
}

namespace {
MatmulCheck check_block_float(const std::vector<float>& got, const std::vector<double>& ref,
                              std::uint32_t cols, int magnitude_bits, double min_pcc) {
  // With cols, each element may also be off by one step of its block: the 16 values of a face row
  // (columns 16j .. 16j + 15 of a row) share the exponent of the largest, and `magnitude_bits`
  // bits of magnitude below it (7 in Bfp8_b, 3 in Bfp4_b) are a step of 2^(exponent - bits + 1).
  std::vector<double> step(ref.size(), 0.0);
  if (cols != 0) {
    for (std::size_t i = 0; i < ref.size(); i += 16) {
      double m = 0;
      for (std::size_t j = i; j < i + 16 && j < ref.size(); ++j)
        m = std::max(m, std::abs(ref[j]));
      const double e = m > 0 ? std::ldexp(1.0, std::ilogb(m) - magnitude_bits + 1) : 0.0;
      for (std::size_t j = i; j < i + 16 && j < ref.size(); ++j)
        step[j] = e;
    }
  }
  MatmulCheck r;
  if (got.size() != ref.size()) {
    r.mismatches = std::max(got.size(), ref.size());
    return r;
  }
  double mg = 0, mr = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = std::abs(static_cast<double>(got[i]) - ref[i]);
    const double ratio = err / (kBf16Tol * (1 + std::abs(ref[i])) + step[i]);
    if (!(ratio <= 1)) // also counts NaN
      ++r.mismatches;
    if (!(err <= r.max_abs_err))
      r.max_abs_err = err; // NaN sticks
    if (!(ratio <= r.max_bound_ratio))
      r.max_bound_ratio = ratio;
    mg += got[i];
    mr += ref[i];
  }
  const auto n = static_cast<double>(got.size());
  mg /= n;
  mr /= n;
  double sgr = 0, sgg = 0, srr = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    sgr += (got[i] - mg) * (ref[i] - mr);
    sgg += (got[i] - mg) * (got[i] - mg);
    srr += (ref[i] - mr) * (ref[i] - mr);
  }
  r.pcc = sgg > 0 && srr > 0 ? sgr / std::sqrt(sgg * srr) : (r.mismatches == 0 ? 1.0 : 0.0);
  r.ok = r.mismatches == 0 && r.pcc >= min_pcc;
  return r;
}
} // namespace

} // namespace tk::baselines
