// insert-compute-init (D4): afterwards the compute kernel starts with compute_kernel_hw_startup
// (its first operation's input CBs and first output CB), and every compute operation is preceded
// by its init where the operation kind or its CBs differ from the last init executed
// (mm_init_short, add_tiles_init, *_bcast_{rows,cols}_init_short, reduce_init, which is undone
// by reduce_uninit before any other init, copy_tile_to_dst_init_short, <op>_tile_init,
// binop_with_scalar_tile_init, ...). A loop whose operations all need one init gets it once,
// before the loop; any other loop body starts from an unknown state.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module insert_compute_init(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
