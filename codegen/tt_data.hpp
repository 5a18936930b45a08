// Template data of the TT target: the three kernels of a program (bodies as IR JSON, the CBs each
// names, the intrinsics each calls) and the host plan that finalize-signature left, restated as
// plain lists so templates/tt/ only spells it (schema: docs/codegen.md, "The TT template data").
#pragma once

#include "lowering/ir/module.hpp"

#include <nlohmann/json.hpp>

namespace tk::codegen {

/// The "tt" key of a kernel in the template data: {"reader", "compute", "writer", "host"}.
/// `p` is a program at the end of the TT chain; a missing function or a malformed plan attribute
/// is an internal error (the chain left something the templates cannot spell).
nlohmann::json tt_template_data(const ir::Program& p);

} // namespace tk::codegen
