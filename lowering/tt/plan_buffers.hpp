// plan-buffers (A2): afterwards every tensor has a circular buffer `cb_<tensor>` that streams it
// (inputs at indices 0-7 in parameter order, outputs at 16-23), in the tensor's data format, one
// tile per page, `cb_depth` pages deep; a kernel with a reduction also has the scaler CB (the next
// free input index, Float16_b, one page). More than 8 inputs or outputs is a located user error.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module plan_buffers(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
