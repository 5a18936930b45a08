// attach-accessors (A3): afterwards the program attribute `accessors` lists, for every DRAM
// tensor in tensor order, its TensorAccessor compile-time args: `[tensor, [ArgsConfig, aligned
// page size]]` (interleaved DRAM: ArgsConfig IsDram = 2; docs/tt_metal.md §3.2).
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module attach_accessors(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
