// partition-threads (CPU chain): afterwards the parallel space of each kernel is one
// `for w in 0 .. W per_thread` loop over its work items (row-major, W = the product of the
// parallel extents), which the CPU runtime's thread pool hands out in chunks; the parallel indices
// are decoded from w (`let i: i32 = w / Nt`, `let j: i32 = w % Nt`). A one-dimensional space keeps
// its loop variable. Nothing else changes.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module partition_threads(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
