// attach-accessors (A3): afterwards the program declares, for every tensor in tensor order, its
// TensorAccessor compile-time args, `accessor T args [ArgsConfig, aligned page size]`
// (ir::Accessor; interleaved DRAM: ArgsConfig IsDram = 2; docs/tt_metal.md §3.2). Their count is
// how far a kernel's next accessor starts.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module attach_accessors(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
