// Template data of the TT target: the three kernels of a program (bodies as IR JSON, the CBs each
// names, the intrinsics each calls, their kernel configs) and its typed host plan, serialised
// field by field as the last TT stage left them, so templates/tt/ only spells them (schema:
// docs/codegen.md, "The TT template data").
#pragma once

#include "lowering/ir/module.hpp"

#include <nlohmann/json.hpp>

namespace tk::codegen {

/// The "tt" key of a kernel in the template data: {"reader", "compute", "writer", "host"}.
/// `p` is a program at the end of the TT chain; a missing kernel, config or plan is an internal
/// error (the chain did not run to its end).
nlohmann::json tt_template_data(const ir::Program& p);

} // namespace tk::codegen
