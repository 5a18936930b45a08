// build-dataflow (C3): afterwards the program attribute `dataflow` is the tile dataflow graph:
// one entry per CB, `[cb, producer, consumer, tiles per work item, tiles per core]`, producer and
// consumer being the kernel that pushes and pops it (reader, compute or writer) and the counts
// sums of loop-extent products (`"Kt"`, `"Nt + 1"`). Every CB has one producer and one consumer
// kind, and pushes and pops agree in count; a disagreement is an internal error.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module build_dataflow(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
