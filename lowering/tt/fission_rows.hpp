// fission-rows (tt, after peel-mask): a Q chunk's row loop inside a key loop (chunk-rows' `for qr
// in 0 .. q` in the body of a loop of role reduction) runs its body one DST section at a time:
// the body is cut where a section's packs end and the next section's DST math begins, and each
// piece becomes a loop of its own over the chunk's rows, so every section runs for all the rows
// before the next section starts and the inits and format reconfigurations a section needs are
// issued per piece, not per row (insert-compute-init sets up a loop whose body needs one init
// once, before it).
//
// Legal only when each value a piece hands to a later piece is the row's own, which the stage
// proves from the circular buffers the body touches (no tile value crosses a cut: a cut is made
// only when DST is released, and the body assigns no variable):
// - a CB touched in one piece only keeps its protocol;
// - a CB a row pushes one tile into (pack_tile) in piece a and pops in a later piece b holds, once
//   piece a has run, the rows' tiles in row order: the reads of pieces a+1 .. b-1 take the row's
//   tile at index qr (piece b's reads come before its pop, at the front, as before);
// - a CB of the rows' state (m, l: one tile per row, popped and pushed again in one piece b, so
//   the rows' tiles stay in row order) is read at index qr in the pieces before b.
// A CB read at index qr is waited for once, all q tiles, before the first piece that does so (its
// waits in piece a dropped: a row's `cb_wait_front(X, 1)` says nothing about the rows after it).
// Any other use of a CB across pieces joins the pieces in between into one. The intermediate CBs
// so read grow to q tiles (assign-cbs' occupancy walk of the rows' loops).
// (docs/lowering.md, "A key step's sections for all the chunk's rows")
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module fission_rows(const ir::Module& m, Diagnostics& diags);

namespace tt {

/// chunk-rows' loops over a Q chunk's rows in a kernel: `for qr in 0 .. q serial`, q the kernel's
/// let of the host's rule (tt.q_chunk) or the literal of @options(q_chunk = N).
class ChunkRowLoops {
public:
  ChunkRowLoops(const ir::Program& p, const ir::Function& kernel);
  bool is_rows(const ir::For& f) const;

private:
  std::int64_t fixed_ = 0;
  std::string rule_;
};

} // namespace tt

} // namespace tk::lower
