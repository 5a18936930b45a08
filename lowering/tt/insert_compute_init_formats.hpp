// insert-compute-init's second walk: the data formats the unpacker (srcA, srcB) and the packer are
// configured for. compute_kernel_hw_startup configures them from its three CBs; an operation that
// unpacks a CB of another format through srcA or srcB gets `reconfig_data_format_srca/srcb(cb)`
// before its init, and a pack into a CB of another format `pack_reconfig_data_format(cb)`, as the
// SDK requires ("If the operands for the next operation require a different data format than
// what was configured here, you must call one of the reconfig_data_format functions",
// compute_kernel_hw_startup.h). A kernel whose CBs share one format gets none.
#pragma once

#include "lowering/ir/module.hpp"

namespace tk::lower::tt {

/// `body` of compute function with its inits placed, after `startup` (a
/// compute_kernel_hw_startup call) has configured the formats.
ir::Stmt insert_format_reconfigs(const ir::Program& p, const ir::Stmt& body,
                                 const ir::Call& startup);

} // namespace tk::lower::tt
