// multicast-reads (tt): in a kernel split over a core grid (partition-work's core_grid), a block
// read that every core of a grid row makes alike (its pages depend on the core's row, never on
// its column: A's blocks in a matmul) is read by the row's first core and multicast along the
// row; one that every core of a column makes alike (B's) is read by the column's top core and
// multicast down the column. Each such df.read_block of the reader (or of the writer, for an input
// CB read_by writer: a blocked matmul's B, multicast on the writer's NoC) becomes a df.mcast_block
// with the core's part in the handshake: whether it sends, the receivers' NoC rectangle and number,
// the sender's NoC coordinates and two semaphores (docs/lowering.md, "Multicast"). Those are
// per-core values of the new host_core function, computed by the host from the core's column and
// row; the semaphores join the host plan. The SDK's matmul_multicore_reuse_mcast scheme.
// In a split_work_to_cores program, a block read that depends on no per-core value (a row that
// keep-rows keeps once per core: gamma, beta) is alike on every core: core (0, 0) reads it and
// multicasts it to the largest rectangle of used cores from (0, 0); a used core outside it reads
// its own. The host_core function then takes the core's coordinates, the split's core count and
// the grid.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module multicast_reads(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
