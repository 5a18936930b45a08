// verify-kernels (F): proves the finished TT program consistent and returns it unchanged. Per
// program: CB indices below the architecture's count and in their role's range; all CBs within the
// L1 budget; for every CB the producer's push tree equals the consumer's wait tree (reader ->
// compute over the input and scaler CBs together, compute -> writer over the output CBs, so the
// order across CBs agrees too), each side's reserves match its pushes and waits its pops, and
// intermediate CBs stay within their depth; DST slots below capacity, math only between
// tile_regs_acquire and tile_regs_commit, pack_tile only between tile_regs_wait and
// tile_regs_release; every get_arg_val reads the runtime arg its kernel config's `runtime_args`
// names there, every one of them is set by the host plan; the accessors follow `compile_args` (the
// first at its offset, each next chained after the one before, each offset where the previous
// accessor's words end); the plan is complete (per-core values, every buffer sized, one reader,
// compute and writer launched, each with its config). A failure is tk::InternalError "internal
// error: <what> after verify-kernels" with the printed IR as detail.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module verify_kernels(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
