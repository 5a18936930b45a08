// lower-reductions: a kernel with reduction variables (tile lets before its parallel loops,
// statements after them; docs/language.md, "Whole-tensor reductions") becomes two programs that
// every later stage lowers like any other kernel (docs/lowering.md, "Whole-tensor reductions"):
//   - the kernel's own program computes partial results: its parallel space is cut into C chunks
//     of consecutive work items (C = the cores of its grid), `for c in 0 .. C parallel`, each
//     chunk starting every reduction variable at its combine's identity (0, -inf, +inf), running
//     its work items in order and storing the variable to page c of a partials tensor
//     `<kernel>_<var>: [32 C, 32]`; the program's attribute `combine` names the second program;
//   - `<kernel>_combine`, one work item: each variable starts from the user's initial value,
//     combines the C partials in chunk order, then the statements after the parallel run and
//     store the outputs they store.
// The host runs the two in order (the generated run_cpu / run_tt). A kernel without reduction
// variables is unchanged.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module lower_reductions(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
