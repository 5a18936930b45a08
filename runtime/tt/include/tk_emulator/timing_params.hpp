// The timing model's parameters: one table per architecture, every figure with its source (a
// document in tenstorrent/tt-metal) or marked as an assumption where nothing is published. The
// emulator's model (runtime/tt/src/timing.cpp) and ttgen's static estimate (report/) read nothing
// else; docs/timing.md prints this table. Header-only and free of the emulator, so the compiler
// can include it without linking the emulator.
#pragma once

#include <algorithm>
#include <array>
#include <iterator>
#include <string_view>

namespace tk::rt::emu::timing {

/// One figure of the model: its value and where it comes from.
struct Param {
  double value;
  std::string_view source;
};

struct Arch {
  std::string_view name;
  Param clock_ghz;
  // Compute (cycles per 32x32 tile on the compute clock; the three TRISCs are one clock).
  std::array<Param, 4> matmul_tile; // LoFi, HiFi2, HiFi3, HiFi4
  Param eltwise_tile;               // add / sub; mul multiplies by the fidelity's phases
  Param reduce_tile;                // max; sum / avg multiply by the fidelity's phases
  Param copy_tile;                  // unpack of one tile to DST
  Param sfpu_simple_tile;           // SFPU ops of a few instructions per element
  Param sfpu_function_tile;         // SFPU transcendental functions
  Param pack_bytes_per_cycle;       // DST to L1
  Param sync_call;                  // a CB or DST-handshake call on a RISC
  // Data movement (cycles and bytes per cycle at the AI clock).
  Param dram_bank_bytes_per_cycle;  // what one bank delivers, reads and writes
  Param dram_peak_bytes_per_cycle;  // all banks at spec speed: the roofline
  Param port_read_bytes_per_cycle;  // into one core, per NoC
  Param port_write_bytes_per_cycle; // out of one core, per NoC
  Param mcast_bytes_per_cycle;      // a linked multicast out of one core
  Param dram_read_latency;
  Param dram_write_latency;
  Param l1_read_latency;
  Param l1_write_latency;
  Param mcast_latency;
  Param read_issue;  // RISC cycles to issue one read request
  Param write_issue; // RISC cycles to issue one write (or semaphore) request
  int dram_banks;
  int grid_x, grid_y;
};

// Sources, abbreviated in the table:
//  GEMM  = tech_reports/GEMM_FLOPS/GEMM_FLOPS.md
//  ME    = tech_reports/matrix_engine/matrix_engine.md
//  DRAM  = tech_reports/Saturating_DRAM_bandwidth/Saturating_DRAM_bandwidth.md
//  NOC   = tt_metal/impl/experimental/noc_estimator/latencies/noc_latencies.yaml (TT's measured
//          latencies of the data-movement tests, Wormhole B0 entries; "N x S B" = N transactions of
//          S bytes, cycles from the first issue to the barrier)
inline constexpr Arch kWormholeB0{
    .name = "wormhole_b0 (n150, 8x8)",
    .clock_ghz = {1.0, "GEMM, ME: 'at 1 GHz'"},
    .matmul_tile = {{{16, "GEMM: cycle_per_tile LoFi 16"},
                     {32, "GEMM: HiFi2 32"},
                     {48, "GEMM: HiFi3 48"},
                     {64, "GEMM: HiFi4 64"}}},
    .eltwise_tile = {8, "ME: 8x16 element-wise per cycle (1024 / 128); mul x fidelity phases"},
    .reduce_tile = {4, "ME: 16x16 reduce per cycle (1024 / 256); sum, avg x fidelity phases"},
    .copy_tile = {8, "assumption: a datacopy moves 8x16 per cycle, like an element-wise op"},
    .sfpu_simple_tile = {64, "assumption: 32 passes of 32 lanes, 2 instructions each"},
    .sfpu_function_tile = {256, "assumption: 32 passes of 32 lanes, 8 instructions each"},
    .pack_bytes_per_cycle = {64, "assumption: the packer writes 64 B per cycle to L1"},
    .sync_call = {10, "assumption: a few RISC-V loads, compares and stores"},
    .dram_bank_bytes_per_cycle = {22.25, "DRAM: u-benchmark 267 GB/s over 12 banks"},
    .dram_peak_bytes_per_cycle = {288, "DRAM: spec speed 288 GB/s (12 GBps GDDR6)"},
    .port_read_bytes_per_cycle = {30.4, "NOC: one core reads 256 x 2 KiB from interleaved DRAM"
                                        " in 17249"},
    .port_write_bytes_per_cycle = {30.2, "NOC: one core writes 256 x 2 KiB to one core in 17362"},
    .mcast_bytes_per_cycle = {28.0, "NOC: linked multicast of 256 x 2 KiB to 25 cores in 18751"},
    .dram_read_latency = {397, "NOC: 1 x 64 B read from one DRAM bank"},
    .dram_write_latency = {425, "NOC: 1 x 128 B write to one DRAM bank"},
    .l1_read_latency = {293, "NOC: 1 x 64 B read from another core"},
    .l1_write_latency = {293, "NOC: 1 x 64 B write to another core"},
    .mcast_latency = {536, "NOC: 1 x 64 B linked multicast to 25 cores"},
    .read_issue = {23, "NOC: 256 x 64 B DRAM reads in 5817 (issue-bound)"},
    .write_issue = {26, "NOC: 256 x 64 B DRAM writes in 6773 (issue-bound)"},
    .dram_banks = 12,
    .grid_x = 8,
    .grid_y = 8,
};

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
