// finalize-signature (E1): afterwards the program is a complete launch plan a template renders
// without decisions. The reader's kernel config gains `processor riscv_1 noc noc_0`, the writer's
// `processor riscv_0 noc noc_1` (as TT's Reader/WriterDataMovementConfig), compute's ComputeConfig
// (`math_fidelity` from the option, `fp32_dest_acc_en` = the program's dst_fp32,
// `math_approx_mode false`); the host plan's buffers gain `size <T>_bytes page <bytes>` (each size
// a new host let) and the plan lists its `kernels` in launch order: reader, compute, writer. With
// the host function's parameters and lets, the CB declarations and the plan's per-core values,
// every name a kernel's runtime args list is defined. An unknown math_fidelity in a hand-edited
// dump is a user error.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module finalize_signature(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
