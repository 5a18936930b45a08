// Rows of tiles on TT (docs/lowering.md, "Rows of tiles"): the shape of use select-tile-ops
// lowers. A row `o` lives in a CB of role `row` holding its tiles in index order; a loop `for d in
// 0 .. n` over the row's whole extent reads `o[d]` at the CB's front and, when it sets `o[d]`,
// pops that tile and pushes the new one at the back, so after the loop the front is tile 0 again.
// Anything else (a read at another index, a set outside such a loop, two sets of one tile) is a
// located user error here.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

#include <optional>
#include <string>

namespace tk::lower::tt {

/// How a loop uses one row.
struct RowUse {
  bool reads = false; // row.get(o, d) before the set, or with none
  bool sets = false;  // o = row.set(o, d, ...), the last statement of the body that mentions o
  bool ends = true; // the loop reaches the row's end (else the next loop continues where it stops)
};

/// The use of row `row` (declared `row.alloc(extent)`) by the loop `f`, which must start at
/// `start` (0, or where the loop before it stopped: keep-rows splits a loop at `row_kept`):
/// nullopt when `f` does not mention it; a located user error (UserErrorReported) when it does so
/// in a way TT does not lower.
std::optional<RowUse> row_use(const ir::For& f, const std::string& row, const ir::Expr& extent,
                              const ir::Expr& start, Diagnostics& diags);
/// Where the loop after `f` over the row must start, when `f` started at `start` and does not
/// reach the row's end.
ir::Expr row_cursor(const ir::For& f, const ir::Expr& start);

/// A located user error for a loop `s` over part of row `row` that no loop continues.
[[noreturn]] void row_partial_loop(const ir::Stmt& s, const std::string& row, Diagnostics& diags);

/// A located user error for a mention of row `row` in `s` outside a loop over it.
[[noreturn]] void row_outside_loop(const ir::Stmt& s, const std::string& row, Diagnostics& diags);

/// Tiles of Float32 a row's CB holds: an L1 share of 256 KiB over the kernel's `rows` rows (64
/// for one row: D up to 2048). The host checks the row's extent against it at run time.
std::int64_t row_capacity(std::int64_t rows);

} // namespace tk::lower::tt
