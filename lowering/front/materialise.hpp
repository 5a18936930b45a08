// materialise: a computed operand of `@` that is invariant in a parallel index is recomputed by
// every work item along that index (mlp.tk's hidden tile h[i, f], the same for every column j of
// the output). The stage decides between recomputing it (the kernel as written), keeping it in
// L1 for the work items of a core, and materialising it in a scratch DRAM tensor written by one
// program and read by the next (docs/lowering.md, "Recompute or materialise"):
//
//   parallel i, j { acc = 0; for f { h = 0; for d { h += A[i, d] @ B[d, f] }; acc += E(h) @ W[f, j]
//   };
//                   C[i, j] = epilogue(acc) }
// becomes
//   program K:       parallel i, f { h = 0; for d { h += A[i, d] @ B[d, f] }; K_h[i, f] = E(h) }
//   program K_after_h: parallel i, j { acc = 0; for f { acc += K_h[i, f] @ W[f, j] }; C[i, j] = ...
//   }
//
// two plain matmuls with element-wise epilogues, each of which the TT chain blocks
// (choose-blocks) and the CPU chain packs (lower-gemm). The two programs are linked as a
// whole-tensor reduction's are (the first's `combine` attribute names the second; the scratch
// tensor is in both, so codegen makes it one buffer both launches use, on one queue).
// The choice is the kept or first program's typed `materialise` field (ir::Materialise, printed
// `materialise dram value "h" tensor "mlp_h" by rule why "..."`): by the timing model's table (both
// chains alike) when every extent is a literal tile count (basis `model`), otherwise by the
// structural rule (a j of one tile recomputes, a wider one materialises; basis `rule`). A program
// attribute `materialise = "recompute"` or `"dram"` asks for one (basis `request`; ttgen report
// lowers the alternative the stage did not choose that way to price it).
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

/// TT: the scratch tensor in the kernel's tensor format (a TT kernel's CBs share one format).
ir::Module materialise_tt(const ir::Module& m, Diagnostics& diags);
/// CPU: the scratch tensor in f32, the precision the fused form kept h in.
ir::Module materialise_cpu(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
