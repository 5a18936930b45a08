// assign-cbs (C1, after select-tile-ops, which creates the intermediate CBs): afterwards every CB
// index lies in its role's range (inputs and scaler 0-7, outputs 16-23, intermediates 24-31),
// each intermediate CB is as deep as the most tiles it ever holds at once, and all CBs together
// fit in the L1 a core of the program's architecture offers them (ArchSpec::l1_cb_budget); a kernel
// that does not fit is a located user error at the first use of the CB that overflows.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module assign_cbs(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
