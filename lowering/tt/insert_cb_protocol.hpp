// insert-cb-protocol (D3): afterwards the data-movement kernels speak the CB protocol of the SDK's
// matmul readers and writers (docs/tt_metal.md §2.2, §3.3): each `df.read_tile(cb, T, page)`
// of the reader is `cb_reserve_back(cb, 1)`, `noc_async_read_tile(page, T, get_write_ptr(cb))`,
// `noc_async_read_barrier()`, `cb_push_back(cb, 1)`; the scaler tile is reserved, filled in place
// (`fill_scaler_tile`) and pushed; each `df.write_tile` of the writer is `cb_wait_front(cb, 1)`,
// `noc_async_write_tile(page, T, get_read_ptr(cb))`, `noc_async_write_barrier()`,
// `cb_pop_front(cb, 1)`. No df.* stream is left.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module insert_cb_protocol(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
