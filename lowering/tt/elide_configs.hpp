// elide-configs: after insert-dst-management, when a compute kernel's calls are final, the
// configuration calls that set what is already set on every path reaching them are left out:
// - a reconfig_data_format_srca/srcb or pack_reconfig_data_format whose CB's formats are those the
//   unpacker's srcA/srcB or the packer already has (a forward dataflow over the structured body:
//   branches meet, a loop head is the fixed point of its entry and back edge; the calls that set
//   formats are one table, from tt-metal's compute API). A reconfiguration that opens a loop body
//   whose iterations all leave that unit in its format goes before the loop, once.
// - an init that repeats the init last executed on every path with no other init, uninit or
//   reconfiguration in between (including the back edge of a loop).
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module elide_configs(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
