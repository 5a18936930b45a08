// lower-elementwise (CPU chain): afterwards each kernel is a `cpu` function with no tile.*
// operation and no load/store node left. Every tile value lives in an fp32 buffer (`let t:
// tile<f32> = cpu.tile()`, a tk::cpu::Tile); loads and stores go through cpu.load_tile /
// cpu.store_tile (bf16 widened exactly, rounded to nearest-even on store); each element-wise
// expression tree is one fused loop nest `for er in 0 .. 32 { for ec in 0 .. 32 {
// cpu.tile_set(dst, er, ec, <f32 math over cpu.tile_get>) } }`; broadcasts read row 0 / column 0
// of their operand in that loop; reductions call cpu.rowsum/rowmax/colsum/colmax; a matmul that
// lower-gemm did not take is an i-k-j loop nest.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module lower_elementwise(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
