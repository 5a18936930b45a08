// The test-case reducer of the differential tester: shrinks a failing kernel while it still fails
// the same way (docs/difftest.md).
#pragma once

#include "tools/difftest/program.hpp"

#include <functional>
#include <ostream>

namespace tk::difftest {

/// Returns the smallest variant of `p` found for which `fails` still holds, trying in turn, until
/// none helps: named dimensions down to 32, removing statements (with the output a removed store
/// wrote), replacing an expression by one of its operands or a constant tile, dropping options
/// and unused inputs. A candidate the checker rejects does not fail the same way, so `fails`
/// returns false for it and it is skipped. Only strictly smaller candidates are tried, so it
/// ends. Each accepted step is printed to `log` if given.
Program reduce(Program p, const std::function<bool(const Program&)>& fails, std::ostream* log);

} // namespace tk::difftest
