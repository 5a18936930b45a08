// The tile IR verifier's shared pieces (verifier.cpp checks programs and the module,
// verifier_function.cpp each function's body): the failure it throws and how it quotes names.
#pragma once

#include "lowering/ir/module.hpp"

#include <string>
#include <string_view>

namespace tk::ir::verifier {

/// A broken invariant; find_ir_error returns its message.
struct Invalid {
  std::string message;
};

[[noreturn]] inline void fail(std::string msg) {
  throw Invalid{std::move(msg)};
}

inline std::string q(std::string_view s) {
  return "'" + std::string(s) + "'";
}

/// Throws Invalid at the first broken invariant of function `f`'s parameters and body: names
/// unique and defined before use with their declared type, intrinsic arities and argument kinds,
/// loads and stores by tensor role, loop roles by function kind and nesting, rows of tiles.
void check_function(const Program& p, const Function& f);

} // namespace tk::ir::verifier
