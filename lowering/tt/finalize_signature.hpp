// finalize-signature (E1): afterwards the program is a complete launch plan a template renders
// without decisions. Reader and writer carry `processor` / `noc` (RISCV_1 / RISCV_1_default and
// RISCV_0 / RISCV_0_default, as the SDK's matmul examples); compute carries its ComputeConfig
// (`math_fidelity`, `fp32_dest_acc_en`, `math_approx_mode`); all three keep `runtime_args` and
// `compile_args` (the TensorAccessorArgs chain, in order). The host function lists `buffers`
// (`[tensor, address name, size name, page size]`, each size a host `let` in bytes) and `kernels`
// (reader, compute, writer); with its lets, its parameters, the CB declarations, `per_core` and
// the split attributes, every name a kernel's runtime args list is defined by the host plan.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module finalize_signature(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
