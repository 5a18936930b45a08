// keep-rows' rewrites of the walks over a kept row that take DST sections out of each tile
// (docs/lowering.md, "Fewer DST sections a tile"); each one-tile section re-initialises the
// unpacker, math and packer for what it runs, and those init calls were most of layernorm's
// compute.
//
// * A square of a let: `let d = e` followed by a statement that reads d only as tile.mul(d, d)
//   becomes tile.square(e) there (d is otherwise packed into a CB of its own and copied back
//   twice).
// * Sums before the rowsum: `let v = tile.zeros()` followed by a reduction loop of one statement
//   `v = tile.add(v, tile.rowsum(e))`, e computed and v not assigned after the loop, becomes a
//   loop summing e into a new accumulator `v_sum` and `let v = tile.rowsum(v_sum)` after it
//   (rowsum is linear): e and the add in one section a tile, where rowsum(e) packed e for the
//   reduce and carried v through its CB in a second. A tile read as it is (rowsum(x[i, j]))
//   stays: reduce_tile sums it from its CB straight into DST. Only where the rowsum of the
//   accumulator is exact (an fp32 DST and bf16 intermediates, whose reduce splits it into hi + lo).
#pragma once

#include "lowering/ir/module.hpp"
#include "lowering/ir/util.hpp"

#include <vector>

namespace tk::lower::tt {

/// The statements of a per-core loop's body with both rewrites applied (the squares inside every
/// loop, the sums among the statements themselves, when `p`'s reduce of them is exact); fresh
/// accumulator names from `names`.
std::vector<ir::Stmt> fewer_sections(const ir::Program& p, const std::vector<ir::Stmt>& walks,
                                     ir::NameSet& names);

} // namespace tk::lower::tt
