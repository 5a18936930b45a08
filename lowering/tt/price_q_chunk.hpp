// price-q-chunk (tt, after insert-dst-management): the Q chunk rule's compute costs
// (include/tilekit/q_chunk.hpp, QChunkLimits::keys and costs) from the timing model's table, for
// the compute kernel this program really runs. chunk-rows leaves the host's `q = tt.q_chunk(H, St,
// Dt, cores, W, max q, page, DRAM rate, 0, 0 ...)` without them: the key step's calls are not final
// until batch-sections, insert-compute-init and insert-dst-management have run. This stage walks
// the compute kernel's work item (the per-core loop's body) at the run's values of the host's lets
// for q = 1, 2, 4, 8 and D = 64 and D = 128 (Dt = 2 and 4), and prices each piece of it: one step
// of each key loop (chunk-keys' loop over chunks of k key tiles, the single key steps after it,
// peel-mask's diagonal steps, the one whose body reads the mask), and the rest of the item (the
// rows' state set up, the stores). It prices the unpack/math thread as the emulator charges it
// (tk_emulator/timing_params.hpp, the architecture's ArchSpec): each tile operation at its class
// and the program's fidelity, each matmul_tiles call by matmul_call_cycles at its CBs' page
// sizes, `init_call` per compute init (lowering/tt/call_cost.hpp: as many as the emulator's SDK
// charges), `dst_handoff` per tile_regs_acquire / commit, `sync_call` per cb_wait_front /
// cb_pop_front (the pack thread's calls are not the math thread's). Each piece's two prices give
// its line, within a cycle at D = 64 and D = 128: per_tile = (c(4) - c(2)) / 2, fixed = (c(2) +
// c(4)) / 2 - 3 per_tile. docs/lowering.md, "Single key steps in the rule".
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

#include <cstdint>
#include <optional>

namespace tk::lower {

ir::Module price_q_chunk(const ir::Module& m, Diagnostics& diags);

namespace tt {
/// The unpack/math thread's cycles of the pieces of `p`'s compute kernel's work item, each for all
/// of a chunk's q rows, at Dt tiles of D (the host's lets evaluated at q, St = 64 and D = 32 Dt):
/// the item's work outside its key loops, one step of the loop over chunks of `keys` key tiles
/// (a single step's price and keys 1 without chunk-keys), one single key step below the diagonal,
/// one diagonal step. nullopt when the program has no rule or no such loops.
struct QItemPrices {
  double item = 0, chunk = 0, single = 0, diagonal = 0;
  std::int64_t keys = 1;
};
std::optional<QItemPrices> q_item_prices(const ir::Program& p, std::int64_t q, std::int64_t Dt);

/// The unpack/math thread's cycles of the compute kernel's whole work item w (every loop run to
/// its count) at q, Dt and St = 64: what q_item_prices' pieces add up to. For the tests.
std::optional<double> q_work_item_cycles(const ir::Program& p, std::int64_t q, std::int64_t Dt,
                                         std::int64_t w);

/// One query row's share of one key tile's step below the diagonal, in the chunk loop at q = DST's
/// tiles (batch-rows' largest batch): q_item_prices' chunk / (q * keys). For the tests.
std::optional<double> key_step_cycles(const ir::Program& p, std::int64_t Dt);
} // namespace tt

} // namespace tk::lower
