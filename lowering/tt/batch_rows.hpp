// batch-rows (tt, after fission-rows): a loop over a Q chunk's rows in a key loop whose body is
// one DST section (its DST math, then its packs) runs the rows in batches of B, B = the DST's
// tiles over the slots a row uses: each statement for the batch's rows in turn, row k's slots
// moved past the rows before it, all in one section, so each operation's init and each format
// reconfiguration is issued once per batch (insert-compute-init), not once per row. A tile a row
// reads at the front of a CB it pops in the body is, in the batch, at the front plus k (the
// batch's pops come after its reads: a read after a pop of its CB is refused), waited for once
// for the batch; the rows' own reads (index qr) take the batch's row. Loops of the body (the
// Q·Kᵀ products over D) run whole for each row in turn, when the CBs they pop are theirs alone.
// The batches: `for qrb in 0 .. q / B`, then one of each power of two below B for the rows left,
// then the last row alone, as the body was (docs/lowering.md, "A key step's sections for all the
// chunk's rows").
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module batch_rows(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
