// Structural invariants of the tile IR, checked after every stage in tests and debug builds:
// names unique and defined before use with the declared type, intrinsic arities and argument
// kinds, stores only to outputs/intermediates, loads only from inputs/intermediates, loop roles
// consistent with the function kind and nesting. A failure is the compiler's bug, not the user's.
#pragma once

#include "lowering/ir/module.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace tk::ir {

/// The first broken invariant, e.g. "in function 'matmul': use of undefined variable 'acc'".
std::optional<std::string> find_ir_error(const Module& m);

/// Throws tk::InternalError("internal error: IR invalid after <stage>: <error>") whose detail is
/// the printed module.
void verify(const Module& m, std::string_view after_stage);

} // namespace tk::ir
