// Facts about the Tenstorrent target shared by the TT stages: circular-buffer index ranges, the L1
// and DST budgets, and which TT compute intrinsics write DST (docs/lowering.md, docs/tt_metal.md).
#pragma once

#include "arch/arch.hpp"
#include "lowering/ir/module.hpp"

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tk::lower::tt {

/// The architecture a program targets (arch/): its `arch` option (ttgen --arch), else the default
/// one. Every chip fact a stage uses (L1, DST, grid, alignments, timing) comes from here.
const arch::ArchSpec& arch_of(const ir::Program& p);

/// The L1 bytes a core's CBs may use on the program's architecture: L1 above the first free
/// address (ArchSpec::l1_cb_budget; the emulator places CBs from the same address).
std::int64_t l1_cb_budget(const ir::Program& p);

/// CB indices each role has (within the first 32, which every architecture has: ArchSpec::
/// num_circular_buffers).
constexpr std::int64_t kCbsPerRole = 8;

/// The index range of a CB role: input and scaler 0-7, output 16-23, intermediate 24-31.
struct CbRange {
  std::int64_t first, last;
};
CbRange cb_range(ir::CBRole role);
/// The indices of `role`'s range no CB of `p` takes, lowest first.
std::vector<std::int64_t> free_cb_indices(const ir::Program& p, ir::CBRole role);

/// DST tiles in half-sync mode on the program's architecture (8 with a 16-bit DST, 4 with fp32
/// accumulation on Wormhole).
std::int64_t dst_capacity(const ir::Program& p, bool fp32_acc);

/// Whether the kernel's intermediates are Float32: it has an f32 tensor. Intermediates share the
/// tensors' format (a bf16 kernel keeps one format for every CB, so the unpacker and packer stay
/// as compute_kernel_hw_startup configured them); the one fact behind select-tile-ops' Float32
/// temporaries and its split sums (only with bf16 ones), plan-buffers' mask tile format, an fp32
/// DST for f32 data, and keep-rows' sums before the rowsum (only with bf16 ones: with Float32
/// intermediates the reduce reads the sum through SrcA as TF32).
bool intermediates_f32(const ir::Program& p);

/// Whether DST holds fp32 (ComputeConfig::fp32_dest_acc_en): the `fp32_acc` option, or a kernel
/// that accumulates (an `@`, a reduction builtin, a value carried across a `for` loop) or has an
/// f32 tensor. A 16-bit DST rounds every partial sum to bf16, which breaks the documented bf16
/// tolerance for sums of a few hundred values, and f32 data in a 16-bit DST keeps bf16 precision
/// (docs/language.md, "Precision").
/// select-tile-ops decides it and records it in the program's typed `dst_fp32`; every later stage
/// reads that through this function, so capacity, formats and the config cannot disagree.
bool dst_fp32(const ir::Program& p);
/// The decision itself, from the kernel function (before select-tile-ops rewrites it).
bool decide_dst_fp32(const ir::Program& p, const ir::Function& kernel);

/// The NoC of the reader (RISCV_1) and of the writer (RISCV_0) on the program's architecture
/// (finalize-signature): TT's preferred NoCs for reading and for writing DRAM (arch/dram_nocs.hpp),
/// as ReaderDataMovementConfig / WriterDataMovementConfig: the reader on NoC 0, the writer on
/// NoC 1. A multicast rectangle runs from the corner its kernel's NoC starts at: the smallest on
/// NoC 0, the largest on NoC 1 (multicast-reads).
ir::Noc reader_noc(const ir::Program& p);
ir::Noc writer_noc(const ir::Program& p);

/// Semaphores a program may create per core (tt-metal's NUM_SEMAPHORES): two per multicast.
constexpr std::int64_t kMaxSemaphores = 16;

/// The reduce scaler 1.0 as the packed bf16 pair the scaler tile is filled with.
constexpr std::uint32_t kScalerOne = 0x3F803F80u;

/// True for the compute intrinsics that write DST (math): copy_tile, the FPU ops, the SFPU ops
/// (those with a `slot` argument in the intrinsic table).
bool writes_dst(ir::Intrinsic fn);
/// True for the `*_init*` calls and compute_kernel_hw_startup / reduce_uninit (effect `init`).
bool is_compute_init(ir::Intrinsic fn);
/// The indices of the arguments of a DST-writing intrinsic that name DST slots.
std::vector<std::size_t> dst_slot_args(ir::Intrinsic fn);

/// The CBs a DST-writing call unpacks through the unpacker's srcA and srcB (null when it reads
/// none through that one): its CB arguments in order, the first through A and the second through B
/// (the SDK's llk_unpack_AB order: reduce_tile's scaler is B), except matmul_tiles(in0, in1),
/// whose in1 goes through A, as mm_init configures the unpacker. A call of one CB leaves B unread.
struct Unpackers {
  ir::Expr srca, srcb;
};
Unpackers unpackers(const ir::Call& c);

/// The CBs a compute function unpacks: through copy_tile or unary_bcast (`to_dest`, straight into
/// DST when the CB is Float32 in UnpackToDestFp32 mode) and as the
/// SrcA/SrcB operands of the FPU ops, matmul, broadcast and reduce (`to_src`).
struct UnpackedCbs {
  std::set<std::string> to_dest, to_src;
};
UnpackedCbs unpacked_cbs(const ir::Function& compute);
/// The CBs to unpack with UnpackToDestMode::UnpackToDestFp32 (ComputeConfig::unpack_to_dest_mode),
/// as the SDK's eltwise ops do for fp32 data: Float32 CBs that compute reads with copy_tile alone,
/// when DST is fp32. Without it their tiles pass through SrcA as TF32 (10 mantissa bits).
std::vector<std::string> unpack_to_dest_fp32(const ir::Program& p, const ir::Function& compute);

/// The program's options (ir::Options: set by to-tile-ir from @options and the ttgen flags); the
/// defaults for a program that has none (a hand-built one).
const ir::Options& options(const ir::Program& p);
/// The cores the program runs on: its `grid` option, else the architecture's whole grid.
ir::Grid option_grid(const ir::Program& p);
/// The `math_fidelity` option (LoFi, HiFi2, HiFi3, HiFi4; default HiFi4); nullopt when it is none
/// of those (finalize-signature reports it).
std::optional<ir::MathFidelity> math_fidelity_option(const ir::Program& p);

} // namespace tk::lower::tt
