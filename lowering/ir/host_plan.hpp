// The typed launch plan of the TT chain: what the host program creates and launches, filled in by
// the TT stages and printed with the IR (docs/ir.md, "The host plan"), so the dump after the last
// stage is exactly what the templates render. Three parts:
//   * Accessor (program): a tensor's TensorAccessor compile-time args (attach-accessors);
//   * KernelConfig (reader, compute and writer functions): runtime and compile-time args
//     (bind-runtime-args), the data-movement or compute config (finalize-signature);
//   * HostPlan (program): the work split (partition-work), the per-core values (to-core-loop), the
//     DRAM buffers (bind-runtime-args, finalize-signature) and the kernels in launch order
//     (finalize-signature).
// Enumerators are TileKit's own (`riscv_1`, `noc_1`, `hifi4`); the SDK spellings
// (`DataMovementProcessor::RISCV_1`, `NOC::NOC_1`, `MathFidelity::HiFi4`) are a table in
// templates/tt/host_tt.cpp.jinja.
#pragma once

#include "lowering/ir/types.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tk::ir {

/// The RISC-V core a data-movement kernel runs on (tt::tt_metal::DataMovementProcessor).
enum class Processor : std::uint8_t { riscv_0, riscv_1 };
std::string_view to_string(Processor);
std::optional<Processor> processor_from_string(std::string_view);

/// The network-on-chip a data-movement kernel issues its reads and writes on (tt::tt_metal::NOC).
enum class Noc : std::uint8_t { noc_0, noc_1 };
std::string_view to_string(Noc);
std::optional<Noc> noc_from_string(std::string_view);

/// ComputeConfig::math_fidelity: how many passes the matrix engine makes per multiply.
enum class MathFidelity : std::uint8_t { lofi, hifi2, hifi3, hifi4 };
std::string_view to_string(MathFidelity);
std::optional<MathFidelity> math_fidelity_from_string(std::string_view);

/// How the host splits the work items over the cores:
///   split_work_to_cores  the SDK's function: the first `items % cores` cores take one item more;
///   core_grid            item (i, j) of a two-loop parallel nest on core (j % cols, i % rows) of a
///                        cols x rows rectangle, every core walking the same number of items (those
///                        past the edge empty), so that a grid row (column) shares its i (j): what
///                        multicast-reads needs. lowering/tt/partition_work.cpp picks one.
enum class WorkSplit : std::uint8_t { split_work_to_cores, core_grid };
std::string_view to_string(WorkSplit);
std::optional<WorkSplit> work_split_from_string(std::string_view);

/// A tensor's TensorAccessor compile-time args: the words the host's TensorAccessorArgs(buffer)
/// appends for it (interleaved: ArgsConfig bits, aligned page size), so `args.size()` is how far
/// the next accessor's args start after this one's. Printed `accessor A args [2, 2048]`.
struct Accessor {
  std::string tensor;
  std::vector<std::int64_t> args;
  std::int64_t arg_count() const { return static_cast<std::int64_t>(args.size()); }
  friend bool operator==(const Accessor&, const Accessor&) = default;
};

/// One tensor's TensorAccessorArgs in a kernel's compile-time args, from word `offset`. Printed
/// `A at 0`.
struct CompileArg {
  std::string tensor;
  std::int64_t offset = 0;
  friend bool operator==(const CompileArg&, const CompileArg&) = default;
};

/// tt::tt_metal::DataMovementConfig of a reader or writer. Printed `processor riscv_1 noc noc_1`.
struct DataMovementConfig {
  Processor processor = Processor::riscv_0;
  Noc noc = Noc::noc_0;
  friend bool operator==(const DataMovementConfig&, const DataMovementConfig&) = default;
};

/// tt::tt_metal::ComputeConfig of a compute kernel. Printed
/// `math_fidelity hifi4 fp32_dest_acc_en true math_approx_mode false`, then
/// ` unpack_to_dest_fp32 [cb_x]` when that list is not empty.
struct ComputeConfig {
  MathFidelity math_fidelity = MathFidelity::hifi4;
  bool fp32_dest_acc_en = false;
  bool math_approx_mode = false;
  /// Float32 CBs whose tiles copy_tile unpacks straight into an fp32 DST
  /// (UnpackToDestMode::UnpackToDestFp32): no TF32 rounding through SrcA, but no FPU operand
  /// either, so only CBs that compute reads with copy_tile alone.
  std::vector<std::string> unpack_to_dest_fp32;
  /// The packer rounds into Bfp8_b from full precision (ComputeConfig::bfp8_pack_precise): set
  /// when the kernel packs into a Bfp8_b CB (a bfp8 output). Printed only when true.
  bool bfp8_pack_precise = false;
  friend bool operator==(const ComputeConfig&, const ComputeConfig&) = default;
};

/// How the host creates and feeds one kernel function; its role is the function's kind (reader,
/// compute, writer). Printed after the parameter list:
/// `runtime_args [A_addr, Kt, start, count] compile_args [A at 0, B at 2] processor riscv_1 noc
/// noc_1` (a compute kernel: `... math_fidelity hifi4 fp32_dest_acc_en true math_approx_mode
/// false`).
struct KernelConfig {
  /// Host values, in get_arg_val index order: each is a host parameter or let, a buffer address
  /// or a per-core value of the plan.
  std::vector<std::string> runtime_args;
  /// The TensorAccessorArgs the host appends, in order; the body binds them in the same order.
  std::vector<CompileArg> compile_args;
  /// Host u32 values appended to the compile-time args after the accessors' words, in order
  /// (fold-scale's folded scale). Printed ` compile_values [scale_ct]` after compile_args, only
  /// when not empty.
  std::vector<std::string> compile_values;
  /// Exactly one of these once finalize-signature ran: data_movement for a reader or writer,
  /// compute for a compute kernel.
  std::optional<DataMovementConfig> data_movement;
  std::optional<ComputeConfig> compute;
  friend bool operator==(const KernelConfig&, const KernelConfig&) = default;
};

/// A DRAM buffer the host creates for a tensor. Printed
/// `buffer A address A_addr size A_bytes page 2048` (`size … page …` once finalize-signature ran).
struct HostBuffer {
  std::string tensor;
  std::string address;        // the host value holding its address (bind-runtime-args)
  std::string size;           // the host let of its size in bytes; empty before finalize-signature
  std::int64_t page_size = 0; // bytes; 0 before finalize-signature
  friend bool operator==(const HostBuffer&, const HostBuffer&) = default;
};

/// The two values the host sets per core: its first work item and how many it runs. Printed
/// `per_core start count`.
struct PerCore {
  std::string start, count;
  friend bool operator==(const PerCore&, const PerCore&) = default;
};

/// The rectangle of a core_grid split. Printed `core_grid x y cols gx rows gy across Nb down Mb`.
struct CoreGrid {
  std::string x, y;         // per-core values: the core's column and row
  std::string cols, rows;   // host values: the cores used, min(grid, across) and min(grid, down)
  std::string across, down; // host lets: the extents of the inner and the outer parallel loop
  friend bool operator==(const CoreGrid&, const CoreGrid&) = default;
};

/// What the host program does besides the lets of the program's `host` function: split the work
/// items over the grid, create the buffers, launch the kernels, set each core's runtime args.
/// Printed after the functions:
///   host_plan {
///     split split_work_to_cores items work_items grid 8x8 row_wise false
///     per_core start count                      (split_work_to_cores)
///     core_grid x y cols gx rows gy across Nb down Mb   (core_grid, instead)
///     semaphores [A_ready, A_valid]              (when a kernel multicasts)
///     buffer A address A_addr size A_bytes page 2048
///     kernels [matmul_reader, matmul_compute, matmul_writer]
///   }
struct HostPlan {
  WorkSplit split = WorkSplit::split_work_to_cores;
  std::string work_items; // the host let counting the work items
  Grid grid;
  bool row_wise = false;             // split_work_to_cores's row_wise: false takes cores by column
  std::optional<PerCore> per_core;   // to-core-loop, split_work_to_cores
  std::vector<HostBuffer> buffers;   // tensor order
  std::vector<std::string> kernels;  // function names in launch order (finalize-signature)
  std::optional<CoreGrid> core_grid; // to-core-loop, core_grid
  /// CreateSemaphore(program, all cores, 0) ids, in creation order, named as host values
  /// (multicast-reads).
  std::vector<std::string> semaphores;
  friend bool operator==(const HostPlan&, const HostPlan&) = default;
};

} // namespace tk::ir
