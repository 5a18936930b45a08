// to-core-loop (B2): afterwards the nest of parallel loops is one loop over the core's range of
// work items, `for w in start .. +count per_core`, with `start` and `count` (u32) new parameters
// of the kernel function (set per core by the host plan) and the parallel indices decoded from
// the row-major linear id: `let i: i32 = w / Nt`, `let j: i32 = w % Nt`. A single parallel loop
// keeps its own variable as the per-core loop variable. The host plan's `per_core start count`
// names the two values it sets per core.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module to_core_loop(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
