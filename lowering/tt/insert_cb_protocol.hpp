// insert-cb-protocol (D3): afterwards the data-movement kernels speak the CB protocol of the SDK's
// matmul readers and writers (docs/tt_metal.md §2.2, §3.3), on the page API
// (`noc_async_read_tile` / `noc_async_write_tile` are deprecated in the SDK). A run of consecutive
// `df.read_tile(cb, T, page)` of distinct CBs in one block becomes every `cb_reserve_back(cb, 1)`,
// every `noc_async_read_page(page, T, get_write_ptr(cb))`, one `noc_async_read_barrier()`, every
// `cb_push_back(cb, 1)`: the reads are in flight together. Writes likewise: every
// `cb_wait_front`, every `noc_async_write_page(page, T, get_read_ptr(cb))`, one
// `noc_async_writes_flushed()` (the pages have left L1 and may be reused), every `cb_pop_front`;
// a kernel that writes ends with one `noc_async_write_barrier()`, as the SDK's writers do, so
// writes are not waited for one round trip at a time. The scaler tile is reserved, filled in place
// (`fill_scaler_tile`) and pushed, and so is each tril/triu tile (`fill_tril_tile<format>` /
// `fill_triu_tile<format>` at the CB's write pointer). No df.* stream is left.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module insert_cb_protocol(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
