// select-tile-ops (C2): afterwards the kernel function holds no tile values: every tile operation
// is a TT compute primitive on CBs and DST slots (docs/lowering.md, "Compute: sections in DST"),
// each value leaves DST by pack_tile, compute waits for and pops every tile it reads, and the
// tiles that cross to the data-movement kernels are the abstract streams `df.read_tile(cb, T,
// page)` (before the first wait for it) and `df.write_tile(cb, T, page)` (after its pack), plus
// `df.scaler_tile` once before the per-core loop when a reduction needs the scaler, and
// `df.tril_tile(cb, format, 32 * (j - i))` (or triu) before the wait for each mask tile. Values
// that must leave DST live in intermediate CBs declared here (indices 24-31); an operation the
// target cannot do, or a ninth intermediate CB, is a located user error.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module select_tile_ops(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
