// partition-work (B1): afterwards each program has its host function `func host <name>_host`
// with the kernel's sizes and scalars as parameters (u32 / f32), `let`s for the tile counts the
// parallel space needs and `let work_items: u32` (the number of points of the parallel space), and
// its host plan with the split policy: `split split_work_to_cores items work_items grid <grid
// option> row_wise false` (cores taken column by column; docs/tt_metal.md §5.4 states the split).
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module partition_work(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
