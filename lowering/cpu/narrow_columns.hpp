// Part of lower-elementwise (CPU chain): element loops `for er in 0 .. 32 { for ec in 0 .. 32 {
// cpu.tile_set(x, er, ec, E) } }` over a tile x of which only column 0 is ever read run over
// column 0 alone (`for ec in 0 .. 1`). A tile holds one value per row where the kernel keeps
// row statistics: attention's correction factor c = exp(m - mn) and its sum l are read through
// bcast_col only (`cpu.tile_get(c, er, 0)`), so computing their other 31 columns spent 31 of
// every 32 exponentials on values nothing reads (half of the CPU attention's exps).
//
// Demand is per tile name, to a fixed point: a tile is column-0 only unless some read of it
// needs more — a `cpu.tile_get(y, er, ec)` in the element loop of a tile that is not column-0
// only, any index pattern other than (er, ec) and (er, 0), or any other mention at all (a call
// argument: rowmax, a store, a row update, a matmul; a copy `m = y`), which counts as reading
// every column. Only the columns nothing reads are left uncomputed.
#pragma once

#include "lowering/ir/nodes.hpp"

#include <string>

namespace tk::lower {

ir::Stmt narrow_columns(const ir::Stmt& body, const std::string& er, const std::string& ec);

} // namespace tk::lower
