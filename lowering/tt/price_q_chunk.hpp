// price-q-chunk (tt, after insert-dst-management): the Q chunk rule's step costs
// (include/tilekit/q_chunk.hpp, QChunkLimits::step_fixed and step_per_tile) from the timing
// model's table, for the compute kernel this program really runs. chunk-rows leaves the host's
// `q = tt.q_chunk(H, St, Dt, cores, W, max q, 0, 0, page, DRAM rate)` without them: the key step's
// calls are not final until batch-sections, insert-compute-init and insert-dst-management have
// run. This stage walks one query row's key step below the diagonal (the body of `for qr in 0 ..
// q` in the compute kernel's first key loop, whose count is the host's q), at the run's values
// of the host's lets for D = 64 and D = 128 (Dt = 2 and 4), and prices its unpack/math thread as
// the emulator charges it (tk_emulator/timing_params.hpp, the architecture's ArchSpec): each
// tile operation at its class and the program's fidelity, each matmul_tiles call by
// matmul_call_cycles at its CBs' page sizes, `init_call` per compute init (lowering/tt/
// call_cost.hpp: as many as the emulator's SDK charges), `dst_handoff` per tile_regs_acquire /
// commit,
// `sync_call` per cb_wait_front / cb_pop_front (the pack thread's calls are not the math
// thread's). The two prices give the rule's line, exact at D = 64 and D = 128: step_per_tile =
// (c(4) - c(2)) / 2, step_fixed = c(2) - 2 step_per_tile. docs/lowering.md, "The rule for q".
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

#include <cstdint>
#include <optional>

namespace tk::lower {

ir::Module price_q_chunk(const ir::Module& m, Diagnostics& diags);

namespace tt {
/// The unpack/math thread's cycles of one query row's key step below the diagonal in `p`'s
/// compute kernel at Dt tiles of D (the host's lets evaluated at D = 32 Dt), by the timing model's
/// table; nullopt when the program has no such step (no host rule, no key loop over the chunk's
/// rows). price-q-chunk's measure, for the tests.
std::optional<double> key_step_cycles(const ir::Program& p, std::int64_t Dt);
} // namespace tt

} // namespace tk::lower
