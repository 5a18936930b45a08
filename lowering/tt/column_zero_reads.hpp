// Which tile values of a kernel are read only in column 0 (docs/lowering.md, "Column vectors"): a
// backward analysis over the tile IR, before select-tile-ops. A row statistic (FlashAttention's m,
// mn, c, l) is produced by rowmax/rowsum, whose result is a column vector, and consumed by
// bcast_col, which reads column 0 only; an SFPU call computing such a value needs to run only on
// the faces holding column 0 (VectorMode::C: faces 0 and 2, the tile's left 16 columns), as TTNN's
// SDPA runs its statistics.
#pragma once

#include "lowering/ir/module.hpp"

#include <optional>
#include <set>
#include <string>

namespace tk::lower::tt {

/// What column_zero_reads proves.
struct ColumnZeroReads {
  /// The tile and row variables every read of which needs only column 0.
  std::set<std::string> vars;
  /// The tile calls (`tile.exp`, `tile.sub`, ...) whose result is read only in column 0,
  /// wherever the call's node occurs.
  std::set<const ir::Call*> calls;
};

/// The values of `kernel` (its tile IR) read only in column 0. A read needs all columns unless
/// proved otherwise: `tile.bcast_col(x)` reads column 0 of x; an element-wise op (unary, scalar,
/// binary, compare, select kinds of the op table) whose result is read only in column 0 reads only
/// column 0 of its operands; `row.get` / `row.set` pass the need on to the row and the tile; a
/// variable needs what its reads need (over every read anywhere: one fact per name), and each of
/// its definitions is read as the variable is. Every other read (a store, a reduction, a matmul,
/// a transpose, bcast_row, a condition) reads the whole tile. The greatest fixed point: a value
/// is column-only unless some chain of reads reaches a whole-tile read.
ColumnZeroReads column_zero_reads(const ir::Function& kernel);

/// The SDK calls that take a vector_mode argument, each with its form on VectorMode::C (checked
/// against tt-metal a8c5af0f5a26's api/compute headers: exp_tile(idst, vector_mode, scale) in
/// eltwise_unary/exp.h, recip_tile(idst, vector_mode) in eltwise_unary/recip.h; add/sub/
/// mul_binary_tile have no such parameter and stay RC): the VectorMode::C call of `rc`, or none.
std::optional<ir::Intrinsic> column_call(ir::Intrinsic rc);
/// The RC call a VectorMode::C call is the form of, or none when `fn` is none.
std::optional<ir::Intrinsic> rc_call(ir::Intrinsic fn);

} // namespace tk::lower::tt
