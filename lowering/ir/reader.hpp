// Reads the printed form of the tile IR back into a Module (hand-written recursive descent), so
// a stage can be tested, or ttgen resumed, from the text of a dump. Errors are user errors in
// clang's form: `dump.txt:12:5: error: unknown intrinsic 'tile.foo'`.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace tk::ir {

/// Parses a whole module. On error, reports it to `diags` (located in `file`) and returns nullopt.
std::optional<Module> read_module(const SourceFile& file, Diagnostics& diags);

/// The stage named by a dump's first line `// after <stage>`, or nullopt when there is none.
std::optional<std::string> read_stage_header(std::string_view text);

} // namespace tk::ir
