// ttgen report: what a lowered TT program does at one shape, counted from its IR without running
// it. The host function's lets are evaluated at the shape, the work is split over the grid as the
// host does (split_work_to_cores, or core_grid with its host_core values), and every core's reader,
// compute and writer bodies are walked with their runtime arguments: DRAM pages read and written
// per tensor, compute calls by SDK name, and the cycles those cost in the timing model's table
// (tk_emulator/timing_params.hpp, the same formula the emulator charges). From those, the two lower
// bounds of the roofline: compute (the busiest core's tile operations) and DRAM (all bytes at the
// DRAM's peak). docs/timing.md, "Static estimate".
#pragma once

#include "lowering/ir/module.hpp"

#include <tk_emulator/timing_params.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tk::report {

/// Dimension name -> size in elements.
using Shape = std::map<std::string, std::int64_t, std::less<>>;

/// One tensor's DRAM traffic over the whole program.
struct TensorTraffic {
  std::string name;
  ir::TensorRole role = ir::TensorRole::input;
  ir::DType dtype = ir::DType::bf16;
  std::int64_t tiles = 0;      // tiles the tensor holds at this shape
  std::int64_t page_bytes = 0; // one tile
  std::int64_t pages_read = 0, pages_written = 0;
  std::int64_t bytes_read() const { return pages_read * page_bytes; }
  std::int64_t bytes_written() const { return pages_written * page_bytes; }
};

/// Calls of one SDK compute function over the whole program.
struct TileOpCount {
  std::string call; // the SDK name, e.g. "matmul_tiles", "exp_tile"
  rt::emu::timing::TileOp cost_class = rt::emu::timing::TileOp::Copy;
  std::int64_t count = 0;
  double cycles = 0; // count x the cost of one
};

struct Estimate {
  std::string kernel;
  std::vector<std::pair<std::string, std::int64_t>> shape; // its dimensions, in first-use order
  std::string arch;
  double clock_ghz = 0; // the architecture's (estimate() sets it from its ArchSpec)
  ir::Grid grid;
  std::string math_fidelity; // LoFi ... HiFi4
  std::int64_t work_items = 0;
  std::int64_t cores = 0;                    // cores given work
  std::int64_t items_min = 0, items_max = 0; // work items per core
  std::vector<TensorTraffic> tensors;        // in declaration order
  std::vector<TileOpCount> tile_ops;         // by call name
  std::int64_t matmul_tiles = 0;
  double compute_cycles = 0;              // every core's tile operations
  double busiest_core_compute_cycles = 0; // the compute bound
  double ideal_matmul_cycles = 0;         // GEMM_FLOPS: tiles x cycles per tile / grid cores
  std::int64_t dram_bytes_read = 0, dram_bytes_written = 0;
  double dram_bound_cycles = 0; // all bytes at the DRAM's peak
  /// The DRAM bytes the data-movement kernels on NoC 0 and on NoC 1 read and write.
  std::array<std::int64_t, 2> dram_bytes_on_noc{};
  /// The longer of: all bytes at every bank's interleaved rate; and each NoC's bytes at its DRAM
  /// queue's rate, for the NoCs that have one (ArchSpec::dram_total_nocs). The timing model
  /// charges both, so no program of interleaved tensors runs faster in the model.
  double dram_floor_cycles = 0;
  double bound_cycles() const {
    return busiest_core_compute_cycles > dram_bound_cycles ? busiest_core_compute_cycles
                                                           : dram_bound_cycles;
  }
  bool dram_bound() const { return dram_bound_cycles >= busiest_core_compute_cycles; }
  /// The best utilisation the program can reach: ideal matmul cycles over the bound.
  double utilization_ceiling() const {
    return bound_cycles() > 0 ? ideal_matmul_cycles / bound_cycles() : 0;
  }
};

/// The named dimensions of a program's tensors, in first-use order.
std::vector<std::string> dimension_names(const ir::Program& p);

/// Estimates one program of a module lowered through the whole TT chain, at `shape` (which names
/// every dimension of dimension_names(p), each a positive multiple of 32). Throws
/// tk::InternalError when the IR holds something it cannot count (a bug: the TT chain makes
/// nothing else).
/// The figures are those of the program's architecture (lower::tt::arch_of).
Estimate estimate(const ir::Program& p, const Shape& shape);

} // namespace tk::report
