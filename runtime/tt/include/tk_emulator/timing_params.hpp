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
#include <string_view>

namespace tk::rt::emu::timing {

/// The figures live in the architecture's ArchSpec (arch/), each with its source.
using Param = ::tk::arch::Param;
using Arch = ::tk::arch::ArchSpec;

/// What a compute call on one tile costs, by class (the SDK calls of each class: docs/timing.md).
enum class TileOp {
  Matmul,       // matmul_tiles
  AddSub,       // add_tiles, sub_tiles and their broadcasts
  Mul,          // mul_tiles and its broadcasts
  ReduceMax,    // reduce_tile with PoolType::MAX or MIN
  ReduceSum,    // reduce_tile with PoolType::SUM or AVG
  Copy,         // copy_tile, transpose_wh_tile
  SfpuSimple,   // the other SFPU calls
  SfpuFunction, // the SFPU calls in kSfpuFunctions
  Pack          // pack_tile
};

/// Whether the class's cost depends on the math fidelity (the matrix engine's multiplier passes).
constexpr bool by_fidelity(TileOp op) {
  return op == TileOp::Matmul || op == TileOp::Mul || op == TileOp::ReduceSum;
}

/// Cycles of one call of class `op` at a fidelity of `phases` passes (LoFi 1 ... HiFi4 4);
/// `bytes` is the page size packed, for Pack.
constexpr double tile_op_cycles(const Arch& a, TileOp op, int phases, double bytes = 0) {
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
  case TileOp::SfpuSimple:
    return a.sfpu_simple_tile.value;
  case TileOp::SfpuFunction:
    return a.sfpu_function_tile.value;
  case TileOp::Pack:
    return bytes / a.pack_bytes_per_cycle.value;
  }
  return 0;
}

/// The unpack and math threads' cycles for one matmul call: an rt x ct sub-block's products for
/// one k step (matmul_block; matmul_tiles is 1 x 1) at a fidelity of `phases` passes, with operand
/// pages of `in0_bytes` and `in1_bytes`. The unpacker runs tt-llk's loop
/// (tt_llk_wormhole_b0/llk_lib/llk_unpack_AB_matmul.h, _llk_unpack_AB_matmul_): the shorter side's
/// tiles (in0's rt if ct >= rt, else in1's ct) are unpacked once, two at a time, and for each pair
/// the longer side's tiles once more. Each UNPACR costs its address cycles and its bytes at its
/// unpacker's L1 rate (in1 into srcA by unpacker 0, in0 into srcB by unpacker 1); the math thread
/// runs the products; the two overlap, and the call's set-up adds. Nothing is charged per product
/// beyond the engine: the bytes and the UNPACRs are what the unpacker pays for.
constexpr double matmul_unpacked_tiles(double rt, double ct) {
  const double reused = ct >= rt ? rt : ct;
  const double longer = ct >= rt ? ct : rt;
  const double pairs = static_cast<double>((static_cast<long>(reused) + 1) / 2);
  return reused + longer * pairs;
}
constexpr double matmul_call_cycles(const Arch& a, int phases, double rt, double ct,
                                    double in0_bytes, double in1_bytes) {
  const double products = rt * ct;
  const double math = products * a.matmul_tile[phases - 1].value;
  const bool reuse_in0 = ct >= rt;
  const double reused = reuse_in0 ? rt : ct;
  const double pairs = static_cast<double>((static_cast<long>(reused) + 1) / 2);
  // in0 goes to srcB (unpacker 1), in1 to srcA (unpacker 0).
  const double srcb_bytes = (reuse_in0 ? rt : rt * pairs) * in0_bytes;
  const double srca_bytes = (reuse_in0 ? ct * pairs : ct) * in1_bytes;
  const double unpack = matmul_unpacked_tiles(rt, ct) * a.unpack_address.value +
                        srca_bytes / a.unpack_bytes_per_cycle.value +
                        srcb_bytes / a.unpack_srcb_bytes_per_cycle.value;
  return std::max(math, unpack) + a.matmul_call.value;
}

/// The SFPU calls that cost `sfpu_function_tile` (transcendental functions, several instructions
/// per element), named as the SDK's call without `_tile` (`exp` for exp_tile); every other SFPU
/// call costs `sfpu_simple_tile`. An assumption, like those two figures.
inline constexpr std::string_view kSfpuFunctions[] = {
    "exp",  "gelu", "recip", "sqrt",  "rsqrt", "log", "sigmoid",  "tanh",
    "silu", "erf",  "exp2",  "log1p", "sin",   "cos", "softplus", "elu"};
constexpr bool is_sfpu_function(std::string_view call) {
  return std::find(std::begin(kSfpuFunctions), std::end(kSfpuFunctions), call) !=
         std::end(kSfpuFunctions);
}

} // namespace tk::rt::emu::timing
