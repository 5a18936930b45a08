// split-kernels (D1): afterwards each program has three functions in place of its kernel:
// `<name>_reader` (the df.read_tile / df.scaler_tile / df.tril_tile / df.triu_tile streams),
// `<name>_compute` (everything else) and `<name>_writer` (the df.write_tile streams). Each keeps
// exactly the loops and index lets it needs, in the kernel's order, so every CB sees its tiles
// pushed and popped in the same order; a per-core loop whose index a kernel does not read runs `0
// .. count`. Parameters are the kernel's parameters each function still uses.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module split_kernels(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
