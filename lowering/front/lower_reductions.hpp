// lower-reductions: a kernel with reduction variables (tile lets before its parallel loops,
// statements after them; docs/language.md, "Whole-tensor reductions") becomes the sequential
// program it means, inside a parallel loop of one iteration: the reduction variables' lets, the
// former parallel loops as reduction loops carrying them, then the statements after. Every later
// stage of both chains sees a kernel of the one form it knows: one parallel nest holding the
// whole body. A kernel without reduction variables is unchanged.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module lower_reductions(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
