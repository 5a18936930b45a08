// The canonical text form of the tile IR (docs/ir.md, "Text format"). Printing is deterministic:
// attributes are sorted, names are the IR's own, floats use the shortest exact spelling, so a
// module printed, read back (reader.hpp) and printed again gives the same text.
#pragma once

#include "lowering/ir/module.hpp"

#include <string>

namespace tk::ir {

std::string print(const Module& m);
std::string print(const Expr& e);
/// One statement (a Block prints its statements), each line indented by `indent` spaces.
std::string print(const Stmt& s, int indent = 0);
std::string print(const AttrValue& v);
/// `{a = 1, b = true}`; empty maps print as `{}`.
std::string print(const Attrs& attrs);
/// The spelling of an f32 immediate: shortest round-trip digits, always with '.', 'e' or inf/nan.
std::string format_float(double v);

} // namespace tk::ir
