// insert-dst-management (D5): afterwards every DST section of the compute kernel is bracketed as
// in the SDK's kernels (docs/tt_metal.md §4.2): `tile_regs_acquire()` before its first math
// statement, `tile_regs_commit()` and `tile_regs_wait()` before its packs, each
// `pack_tile(slot, cb)` between `cb_reserve_back(cb, 1)` and `cb_push_back(cb, 1)`, and
// `tile_regs_release()` after the last pack. A section is a run of math statements (a loop of
// math counts as one) followed by its packs; every DST slot is below the capacity
// (tt::dst_capacity: the architecture's, arch::ArchSpec::dst_tiles, halved with fp32_acc).
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module insert_dst_management(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
