// What a compute call costs by the timing model's table (tk_emulator/timing_params.hpp, the
// architecture's ArchSpec, the figures the emulator charges): its cost class, and its cycles on
// the compute kernel's unpack/math thread. Shared by ttgen's static estimate (report/) and the
// Q chunk rule's step costs (price-q-chunk), so that the class of a call is spelled once.
#pragma once

#include "lowering/ir/module.hpp"

#include <tk_emulator/timing_params.hpp>

namespace tk::lower::tt {

/// The cost class of a compute call that writes DST or packs (the classes of timing_params.hpp):
/// matmul_tiles and matmul_block Matmul, add/sub (and their broadcasts) AddSub, mul Mul, reduce by
/// its pool type, copy_tile / unary_bcast / transpose_wh_tile Copy, pack_tile Pack, every other
/// (SFPU) call Sfpu.
rt::emu::timing::TileOp tile_op_class(const ir::Call& c);

/// The cycles `c` adds to the compute kernel's unpack/math thread in `p` at `phases` fidelity
/// passes (LoFi 1 ... HiFi4 4), as the emulator charges them (docs/timing.md, "The model"): a
/// matmul_tiles (matmul_block) call matmul_call_cycles at its CBs' page sizes, another DST write
/// fpu_call_cycles below, an SFPU call its own tile_op_cycles (with the program's DST format:
/// dst_fp32), an init `init_call` (mm_init and unary_bcast_init two, an SFPU op's
/// `*_tile_init` none, as the emulator's SDK charges them: runtime/tt/include/api/compute/),
/// tile_regs_acquire and tile_regs_commit `dst_handoff`, cb_wait_front and cb_pop_front
/// `sync_call`. The pack thread's calls (pack_tile, cb_reserve_back, cb_push_back,
/// tile_regs_wait, tile_regs_release) and anything else cost it nothing: 0. Waiting is not priced.
double math_thread_cycles(const ir::Program& p, const ir::Call& c, int phases);

/// The name the timing model's SFPU table charges SFPU call `fn` under (timing::sfpu_tile_cycles):
/// its SDK name, but "exp_approx" for exp_tile<true> (exp_tile.approx),
/// "exp_approx_noclamp_32" for exp_tile<true, false, InputClamping::None, 32>
/// (exp_tile.approx_noclamp) and the RC call's for a call on VectorMode::C (exp_tile.col is
/// exp_tile).
std::string_view sfpu_cost_name(ir::Intrinsic fn);

/// The cycles of SFPU call `fn` on one tile (timing::sfpu_call_cycles), as the emulator charges
/// it: a call on VectorMode::C (column_zero_reads.hpp's column_call) runs faces 0 and 2
/// (timing::sfpu_call_cycles), every other call costs its table figure (sfpu_tile_cycles).
double sfpu_cycles(const rt::emu::timing::Arch& a, ir::Intrinsic fn, bool fp32_dst);

/// A non-matmul FPU call that unpacks CB tiles (copy_tile, transpose_wh_tile, unary_bcast,
/// add/sub/mul_tiles and their broadcasts, reduce_tile): timing::fpu_call_cycles with its CBs'
/// page sizes, what its broadcast fetches, and whether a compute kernel of `p` unpacks its CB to
/// DST, as the emulator charges it; -1 for any other call.
double fpu_call_cycles(const ir::Program& p, const ir::Call& c, int phases);

} // namespace tk::lower::tt
