// The timing model's cost classes: what a compute call costs, from the figures of the
// architecture's ArchSpec (arch/wormhole_b0.hpp, every figure with its source, a document in
// tenstorrent/tt-metal, or marked as an assumption where nothing is published). The emulator's
// model (runtime/tt/src/timing.cpp) and ttgen's static estimate (report/) read nothing else;
// docs/timing.md prints the table. Header-only and free of the emulator, so the compiler can
// include it without linking the emulator.
#pragma once

#include "arch/spec.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

namespace tk::rt::emu::timing {

/// The figures live in the architecture's ArchSpec (arch/), each with its source.
using Param = ::tk::arch::Param;
using Arch = ::tk::arch::ArchSpec;

/// What a compute call on one tile costs, by class (the SDK calls of each class: docs/timing.md).
enum class TileOp {
  Matmul,    // matmul_tiles
  AddSub,    // add_tiles, sub_tiles and their broadcasts
  Mul,       // mul_tiles and its broadcasts
  ReduceMax, // reduce_tile with PoolType::MAX or MIN
  ReduceSum, // reduce_tile with PoolType::SUM or AVG
  Copy,      // copy_tile, transpose_wh_tile
  Sfpu,      // the other calls, on the SFPU: each its own cost (sfpu_tile_cycles)
  Pack       // pack_tile
};

/// Whether the class's cost depends on the math fidelity (the matrix engine's multiplier passes).
constexpr bool by_fidelity(TileOp op) {
  return op == TileOp::Matmul || op == TileOp::Mul || op == TileOp::ReduceSum;
}

/// An SFPU call's name in the `sfpu_tile` table: the SDK's call without `_tile`
/// (`mul_binary_tile` is `mul_binary`; `exp` stays `exp`).
constexpr std::string_view sfpu_call_name(std::string_view call) {
  if (call.ends_with("_tile"))
    call.remove_suffix(5);
  return call;
}

/// The cycles of SFPU call `call` (the SDK's name, with or without `_tile`) on one tile, with an
/// fp32 DST (ComputeConfig::fp32_dest_acc_en) or a 16-bit one: its entry in the architecture's
/// `sfpu_tile` table (each figure with its source: arch/wormhole_b0.hpp), or for a call without
/// one `sfpu_simple_tile`, an assumption (every call ttgen and the baselines emit has an entry:
/// tests/unit/emulator/test_sfpu_costs.cpp).
constexpr double sfpu_tile_cycles(const Arch& a, std::string_view call, bool fp32_dst) {
  call = sfpu_call_name(call);
  for (const ::tk::arch::SfpuCost& c : a.sfpu_tile)
    if (c.call == call)
      return (fp32_dst ? c.fp32_dst : c.bf16_dst).value;
  return a.sfpu_simple_tile.value;
}

/// tt-llk's VectorMode (llk_defs.h), the faces an SFPU call runs: `_llk_math_eltwise_{unary,
/// binary}_sfpu_params_` (tt_llk_wormhole_b0/llk_lib/) runs the kernel once on each of faces 0-3
/// on RC, on faces 0 and 1 on R, on faces 0 and 2 on C (each time its ITERATIONS rows: the whole
/// face), and once on None (its ITERATIONS rows from face 0).
enum class SfpuMode { None = 0, R = 1, C = 2, RC = 4 };

/// The cycles around an SFPU call's kernel passes, on top of the passes themselves: the start (two
/// SETC16, a STALLWAIT) and the done (SETRWC, STALLWAIT, SETC16), 6; on RC two SETRWCs after each
/// face (8), on R two after each of its 2 faces and 4 to skip faces 2 and 3 (8), on C four after
/// each of its 2 faces (8), on None none.
constexpr double sfpu_frame_cycles(SfpuMode m) {
  return m == SfpuMode::None ? 6 : 6 + 8;
}
/// The kernel passes of a call on mode `m`.
constexpr int sfpu_passes(SfpuMode m) {
  return m == SfpuMode::RC ? 4 : m == SfpuMode::None ? 1 : 2;
}

/// The cycles of one call of SFPU call `call` on VectorMode `m`: its table figure
/// (sfpu_tile_cycles, for the mode the entry was measured or counted on: RC, or None for an entry
/// of one pass) split into the frame and the kernel passes, and charged for the passes `m` runs.
constexpr double sfpu_call_cycles(const Arch& a, std::string_view call, bool fp32_dst, SfpuMode m) {
  call = sfpu_call_name(call);
  int passes = 4;
  for (const ::tk::arch::SfpuCost& c : a.sfpu_tile)
    if (c.call == call)
      passes = c.passes;
  const SfpuMode entry_mode = passes == 1 ? SfpuMode::None : SfpuMode::RC;
  const double figure = sfpu_tile_cycles(a, call, fp32_dst);
  if (m == entry_mode)
    return figure;
  const double pass = (figure - sfpu_frame_cycles(entry_mode)) / passes;
  return sfpu_frame_cycles(m) + pass * sfpu_passes(m);
}

/// Cycles of one call of class `op` at a fidelity of `phases` passes (LoFi 1 ... HiFi4 4);
/// `bytes` is the page size packed, for Pack; `sfpu_call` the call and `fp32_dst` the DST format,
/// for Sfpu (sfpu_tile_cycles).
constexpr double tile_op_cycles(const Arch& a, TileOp op, int phases, double bytes = 0,
                                std::string_view sfpu_call = {}, bool fp32_dst = false) {
  switch (op) {
  case TileOp::Matmul:
    return a.matmul_tile[phases - 1].value;
  case TileOp::AddSub:
    return a.eltwise_tile.value;
  case TileOp::Mul:
    return a.eltwise_tile.value * phases;
  case TileOp::ReduceMax:
    return a.reduce_tile.value;
  case TileOp::ReduceSum:
    return a.reduce_tile.value * phases;
  case TileOp::Copy:
    return a.copy_tile.value;
  case TileOp::Sfpu:
    return sfpu_tile_cycles(a, sfpu_call, fp32_dst);
  case TileOp::Pack:
    return bytes / a.pack_bytes_per_cycle.value;
  }
  return 0;
}

/// The tiles one matmul call unpacks (an rt x ct sub-block's k step: matmul_block; matmul_tiles is
/// 1 x 1), by the architecture's tt-llk loop (tt_llk_<arch>/llk_lib/llk_unpack_AB_matmul.h,
/// _llk_unpack_AB_matmul_): the shorter side's tiles (in0's rt if ct >= rt, else in1's ct) once,
/// `matmul_pass_tiles` at a time (Wormhole 2, Blackhole 1), and for each pass the longer side's
/// tiles once more.
constexpr double matmul_unpacked_tiles(const Arch& a, double rt, double ct) {
  const double reused = ct >= rt ? rt : ct;
  const double longer = ct >= rt ? ct : rt;
  const long pass = static_cast<long>(a.matmul_pass_tiles.value);
  const double passes = static_cast<double>((static_cast<long>(reused) + pass - 1) / pass);
  return reused + longer * passes;
}

/// What one unpacker fetches from L1 for one operand tile of a non-matmul FPU call.
enum class Fetch {
  Tile,   // the whole tile: copy_tile, transpose_wh_tile, the binary ops' first operand, ...
  Row,    // a ROW broadcast's operand
  Col,    // a COL broadcast's operand
  Scalar, // a SCALAR broadcast's operand, and reduce_tile's scaler
  None    // nothing (no second operand)
};

/// The faces (16x16 quarters of a 32x32 tile) fetched, one UNPACR each, by tt-llk's MOPs
/// (tenstorrent/tt-llk 36b092e, tt_llk_wormhole_b0/llk_lib/): a tile's 4 (llk_unpack_A.h,
/// llk_unpack_AB.h: one UNPACR per face); a ROW broadcast's srcB faces 0 and 1, each twice
/// (llk_unpack_AB.h and llk_unpack_A.h, `unpack_srcb` per inner loop with the face counter
/// cleared after each outer one); a COL broadcast's faces 0 and 2 (`srcb_set_z_2`); a SCALAR
/// broadcast's face 0 (one `unpack_srcb` start op); reduce_tile's scaler face 0
/// (llk_unpack_reduce.h: `unpack_srcb` as the MOP's start op). One table for the emulator and
/// lowering's pricer (lowering/tt/call_cost.cpp).
constexpr int fetched_faces(Fetch f) {
  switch (f) {
  case Fetch::Tile:
  case Fetch::Row:
    return 4;
  case Fetch::Col:
    return 2;
  case Fetch::Scalar:
    return 1;
  case Fetch::None:
    return 0;
  }
  return 0;
}

/// One unpacker's share of a call: what it fetches of a tile whose CB page is `page_bytes` (the
/// CB's data format: bf16 2,048, fp32 4,096, bfp8_b 1,088).
struct Unpacked {
  Fetch fetch = Fetch::None;
  double page_bytes = 0;
  constexpr double bytes() const { return page_bytes * fetched_faces(fetch) / 4.0; }
};

/// The unpack thread's cycles for one non-matmul FPU call in a stream of them, unpacker 0's
/// fetch `u0` (srcA, or DST) and unpacker 1's `u1` (srcB), by the same ISA figures as
/// matmul_call_cycles (UNPACR_Regular.md, "Performance"): while both fetch each gets
/// `unpack_shared_bytes_per_cycle`, alone `unpack_bytes_per_cycle`, so the shorter fetch runs
/// shared and the rest of the longer alone; each UNPACR holds the thread `unpack_address` cycles
/// (one per face fetched), which overlap the fetches unless there are more of them.
constexpr double unpack_call_cycles(const Arch& a, Unpacked u0, Unpacked u1 = {}) {
  const double b0 = u0.bytes(), b1 = u1.bytes();
  const double shared = std::min(b0, b1), alone = std::max(b0, b1) - shared;
  const double fetch =
      shared / a.unpack_shared_bytes_per_cycle.value + alone / a.unpack_bytes_per_cycle.value;
  const double issue = (fetched_faces(u0.fetch) + fetched_faces(u1.fetch)) * a.unpack_address.value;
  return std::max(fetch, issue);
}

/// A non-matmul FPU call that unpacks its operands from CBs (copy_tile, transpose_wh_tile,
/// unary_bcast, add/sub/mul_tiles and their broadcasts, reduce_tile), in a stream of them: the
/// unpack thread fills the next call's srcA / srcB bank while the math thread runs this call's op
/// on the other (two banks each: SrcASrcB.md), so a call costs the slower of the two threads,
/// max(unpack_call_cycles, tile_op_cycles): the steady state matmul_call_cycles measures for
/// matmul, without matmul's per-call `matmul_call` (pinned by GEMM's rows; nothing publishes one
/// for these calls). `to_dest`: unpacker 0 writes DST itself (a Float32 CB in
/// UnpackToDestMode::UnpackToDestFp32): no bank to run ahead into, and the math thread only hands
/// DST over and waits (tt-llk llk_math_eltwise_unary_datacopy.h, math_unpack_to_dest_math_ready,
/// math_unpack_to_dest_tile_ready), so the call costs its unpack.
constexpr double fpu_call_cycles(const Arch& a, TileOp op, int phases, Unpacked u0,
                                 Unpacked u1 = {}, bool to_dest = false) {
  const double unpack = unpack_call_cycles(a, u0, u1);
  return to_dest ? unpack : std::max(unpack, tile_op_cycles(a, op, phases));
}

/// The unpack and math threads' cycles for one matmul call in a stream of them (a compute
/// kernel's k loop), the srcA / srcB banks followed one by one (docs/timing.md, "Operand
/// delivery"). The unpack thread issues tt-llk's UNPACRs in order (llk_unpack_AB_matmul.h): per
/// pass of the shorter side's tiles (`matmul_pass_tiles` of them: a pair on Wormhole, one on
/// Blackhole), those tiles, then the longer side's tiles (in0 to srcB by unpacker 1, in1 to srcA
/// by unpacker 0); each UNPACR holds its thread `unpack_address` cycles and
/// fills one bank. An UNPACR waits at the thread's Wait Gate while its unpacker executes an
/// earlier one, and waits inside the unpacker until a bank is given to it (ISA: WaitGate.md,
/// SrcASrcB.md). An unpacker fetches at `unpack_bytes_per_cycle` (x4) alone and at
/// `unpack_shared_bytes_per_cycle` (x2) while the other one fetches too (UNPACR_Regular.md,
/// "Performance"). The math thread runs the products in tt-llk's order (llk_math_matmul.h,
/// _llk_math_matmul_): for each of the longer side's tiles, one product with each tile of the pass,
/// each waiting for both banks; a longer-side tile's bank goes back after its last product, a
/// pass tile's after its product with the call's last longer-side tile. The steady state (the mean
/// call of calls 128 .. 255 of such a stream: the unpackers' lead from the first calls, at most
/// the four banks, is spread over 128 calls), plus `matmul_call`.
inline double matmul_call_cycles(const Arch& a, int phases, double rt_d, double ct_d,
                                 double in0_bytes, double in1_bytes) {
  const int rt = static_cast<int>(rt_d), ct = static_cast<int>(ct_d);
  if (rt <= 0 || ct <= 0)
    throw std::invalid_argument("matmul_call_cycles: an empty sub-block");
  struct Key {
    const Arch* a;
    int phases, rt, ct;
    double in0, in1;
    bool operator==(const Key&) const = default;
  };
  thread_local std::vector<std::pair<Key, double>> cache;
  const Key key{&a, phases, rt, ct, in0_bytes, in1_bytes};
  for (const auto& [k, v] : cache)
    if (k == key)
      return v;

  const bool reuse_in0 = ct >= rt; // tt-llk's reuse_a: in0's tiles are the pair
  const int pair_dim = reuse_in0 ? rt : ct, long_dim = reuse_in0 ? ct : rt;
  const int pair_unpacker = reuse_in0 ? 1 : 0, long_unpacker = 1 - pair_unpacker;
  const double pair_bytes = reuse_in0 ? in0_bytes : in1_bytes;
  const double long_bytes = reuse_in0 ? in1_bytes : in0_bytes;
  constexpr int kCalls = 256, kFrom = 128;
  // Tiles are numbered per call: the shorter side's 0 .. pair_dim-1, then pair_dim + (t0 / pass)
  // * long_dim + r for the longer side's r-th tile after the pass starting at t0.
  const int pass = static_cast<int>(a.matmul_pass_tiles.value);
  if (pass < 1)
    throw std::invalid_argument("matmul_call_cycles: matmul_pass_tiles below 1");
  const int per_call = pair_dim + (pair_dim + pass - 1) / pass * long_dim;
  struct Unpack {
    int unpacker, tile;
    double bytes;
  };
  struct Product {
    int pair_tile, long_tile;
    bool frees_long, frees_pair;
  };
  std::vector<Unpack> unpacks;
  std::vector<Product> products;
  for (int c = 0; c < kCalls; ++c)
    for (int t0 = 0; t0 < pair_dim; t0 += pass) {
      const int n = std::min(pass, pair_dim - t0);
      for (int i = 0; i < n; ++i)
        unpacks.push_back({pair_unpacker, c * per_call + t0 + i, pair_bytes});
      const int first_long = c * per_call + pair_dim + t0 / pass * long_dim;
      for (int r = 0; r < long_dim; ++r)
        unpacks.push_back({long_unpacker, first_long + r, long_bytes});
      for (int r = 0; r < long_dim; ++r)
        for (int i = 0; i < n; ++i)
          products.push_back(
              {c * per_call + t0 + i, first_long + r, i == n - 1, r == long_dim - 1});
    }
  const double engine = a.matmul_tile[static_cast<std::size_t>(phases - 1)].value;
  const int tiles = kCalls * per_call;
  std::vector<char> valid(static_cast<std::size_t>(tiles), 0);
  std::vector<int> owner(static_cast<std::size_t>(tiles), 0);
  int free_banks[2] = {2, 2};
  struct Fetch {
    int tile = -1; // -1: the unpacker executes nothing
    double left = 0;
    bool has_bank = false;
  } fetch[2];
  std::size_t issued = 0, done = 0;
  long now = 0, thread_free = 0, math_free = 0;
  int current = -1;
  std::vector<long> call_end(kCalls, 0);
  const std::size_t per_call_products = products.size() / kCalls;
  while (done < products.size()) {
    // Most cycles only move the unpackers' bytes: no UNPACR to issue (none left, its unpacker
    // busy, or the thread not yet free), no bank to grant, no product to finish or to start, no
    // fetch to finish. Those cycles up to the next such event run here as only their
    // subtractions, the same ones in the same order as the full cycle below, so the result is
    // the same to the bit (choose-blocks calls this once per ttgen run, and the full cycles were
    // 7% of its main thread's instructions: docs/ttgen.md, "Start-up").
    {
      long until = std::numeric_limits<long>::max();
      bool event = false;
      if (issued < unpacks.size() && fetch[unpacks[issued].unpacker].tile < 0) {
        if (now >= thread_free)
          event = true;
        else
          until = thread_free;
      }
      for (int u = 0; u < 2; ++u)
        event = event || (fetch[u].tile >= 0 && !fetch[u].has_bank && free_banks[u] > 0);
      if (current >= 0) {
        if (now >= math_free)
          event = true;
        else
          until = std::min(until, math_free);
      } else if (valid[static_cast<std::size_t>(products[done].pair_tile)] &&
                 valid[static_cast<std::size_t>(products[done].long_tile)]) {
        event = true;
      }
      if (!event) {
        const double rate = fetch[0].has_bank && fetch[1].has_bank
                                ? a.unpack_shared_bytes_per_cycle.value
                                : a.unpack_bytes_per_cycle.value;
        while (now < until) {
          bool finishes = false;
          for (const Fetch& f : fetch)
            finishes = finishes || (f.tile >= 0 && f.has_bank && f.left - rate <= 0);
          if (finishes)
            break;
          for (Fetch& f : fetch)
            if (f.tile >= 0 && f.has_bank)
              f.left -= rate;
          if (++now > 100'000'000)
            throw std::logic_error("matmul_call_cycles: the unpack and math threads stopped");
        }
      }
    }
    if (issued < unpacks.size() && now >= thread_free) {
      const Unpack& u = unpacks[issued];
      if (fetch[u.unpacker].tile < 0) { // the Wait Gate: the unpacker is free
        fetch[u.unpacker] = {u.tile, u.bytes, false};
        ++issued;
        thread_free = now + static_cast<long>(a.unpack_address.value);
      }
    }
    for (Fetch& f : fetch) {
      const int u = static_cast<int>(&f - fetch);
      if (f.tile >= 0 && !f.has_bank && free_banks[u] > 0) {
        --free_banks[u];
        f.has_bank = true;
      }
    }
    const bool both = fetch[0].has_bank && fetch[1].has_bank;
    for (Fetch& f : fetch) {
      if (f.tile < 0 || !f.has_bank)
        continue;
      f.left -= both ? a.unpack_shared_bytes_per_cycle.value : a.unpack_bytes_per_cycle.value;
      if (f.left <= 0) {
        valid[static_cast<std::size_t>(f.tile)] = 1;
        owner[static_cast<std::size_t>(f.tile)] = static_cast<int>(&f - fetch);
        f = Fetch{};
      }
    }
    if (current >= 0 && now >= math_free) {
      const Product& p = products[static_cast<std::size_t>(current)];
      if (p.frees_long)
        ++free_banks[owner[static_cast<std::size_t>(p.long_tile)]];
      if (p.frees_pair)
        ++free_banks[owner[static_cast<std::size_t>(p.pair_tile)]];
      call_end[done / per_call_products] = now;
      current = -1;
      ++done;
    }
    if (current < 0 && done < products.size()) {
      const Product& p = products[done];
      if (valid[static_cast<std::size_t>(p.pair_tile)] &&
          valid[static_cast<std::size_t>(p.long_tile)]) {
        current = static_cast<int>(done);
        math_free = now + static_cast<long>(engine);
      }
    }
    if (++now > 100'000'000)
      throw std::logic_error("matmul_call_cycles: the unpack and math threads stopped");
  }
  const double steady = static_cast<double>(call_end[kCalls - 1] - call_end[kFrom]) /
                        static_cast<double>(kCalls - 1 - kFrom);
  const double cycles = steady + a.matmul_call.value;
  cache.emplace_back(key, cycles);
  return cycles;
}

} // namespace tk::rt::emu::timing
