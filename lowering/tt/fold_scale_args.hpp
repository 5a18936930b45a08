// fold-scale-args (tt, after bind-runtime-args): the scale an exp_tile.approx_scaled reads (the
// approximate exp fold-scale gave the score's scale, lowering/tt/fold_scale.hpp), a runtime arg
// `b = get_arg_val(n)` the host sets to float_bits(f), as the compute kernel's compile-time arg
// instead: exp_tile_init<true, scale> takes it as a template argument, as TTNN's SDPA passes its
// scale. The host's `let b_ct: u32 = tt.exp_scale_bits(f)` (f's bits; a run-time error unless
// f > 0) goes into the kernel config's compile_values, the kernel binds `let b_ct: u32 =
// get_compile_time_arg_val(k)` (k after the accessors' words) and each call's scale is b_ct
// (docs/lowering.md, "Scale folding").
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module fold_scale_args(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
