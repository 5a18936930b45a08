// to-tile-ir: a checked DSL module becomes the tile IR. Afterwards: one Program per kernel with
// its tensors (role from the signature, no layout yet) and the kernel options as attributes
// (grid, cb_depth, fp32_acc, math_fidelity); one `kernel` function whose parameters are the
// kernel's tensors and scalars then its named dimensions (i32, in elements); `let Dt = D / 32`
// for every named dimension; the parallel space as nested `parallel` loops; sequential loops
// marked `reduction` when they rebind a value declared outside them, else `serial`; tile values
// as `tile<f32>` locals; every DSL operator and builtin as a `tile.*` intrinsic; `+=` as
// `tile.add` or, for `@`, `tile.matmul_acc`. DSL locations are kept on statements and calls.
#pragma once

#include "dsl/ast.hpp"
#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

#include <string_view>

namespace tk::lower {

/// `m` must have passed dsl::check. `arch` (ttgen --arch), when not empty, overrides a kernel's
/// own `arch` option; a kernel without a `grid` option gets the whole grid of its architecture.
ir::Module to_tile_ir(const dsl::Module& m, Diagnostics& diags, std::string_view arch = {});

} // namespace tk::lower
