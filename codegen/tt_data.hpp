// Template data of the TT target: the three kernels of a program (bodies as IR values, the CBs each
// names, the intrinsics each calls, their kernel configs) and its typed host plan, serialised
// field by field as the last TT stage left them, so templates/tt/ only spells them (schema:
// docs/codegen.md, "The TT template data").
#pragma once

#include "jinja/value.hpp"
#include "lowering/ir/module.hpp"

#include <set>
#include <string>

namespace tk::codegen {

/// The "tt" key of a kernel in the template data: {"reader", "compute", "writer", "host"}.
/// `p` is a program at the end of the TT chain; a missing kernel, config or plan is an internal
/// error (the chain did not run to its end).
/// `partials`: the tensors of per-chunk partial results a reduction kernel hands from its first
/// program to its combine program (lower-reductions); their buffers get the role "partials".
/// `outer`: for a combine program, the kernel's first program, whose tensors bind the sizes the
/// combine's host reads; its host's parameters are left out of this one's `params` (they are
/// bound already), not of its `param_names`.
jinja::Value tt_template_data(const ir::Program& p, const std::set<std::string>& partials = {},
                              const ir::Program* outer = nullptr);

} // namespace tk::codegen
