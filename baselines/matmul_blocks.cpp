// The block sizes of the reuse examples: the SDK's rule (bmm_op.hpp's get_large_matmul_params in
// matmul_common), reuse_mcast's fallback, ttnn's benchmark rule (choose_reuse_blocking,
// matmul.hpp).
#include "baselines/matmul.hpp"
#include "baselines/matmul_internal.hpp"

#include "arch/arch.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <stdexcept>
#include <utility>

#include <tt-metalium/constants.hpp>

namespace tk::baselines {
namespace {

using detail::check_shape;
using detail::dims;
using detail::kTileBytes;
using tt::constants::TILE_HEIGHT;
using tt::constants::TILE_WIDTH;
using tt::tt_metal::CoreCoord;

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

} // namespace

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

} // namespace tk::baselines
