// infer-layout (A1): afterwards every tensor has a layout: DRAM, interleaved, 32x32 tiles, one
// tile per page (bf16 2048 B, f32 4096 B). Tensors that already have a layout keep it.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module infer_layout(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
