// Deep structural equality of IR nodes and modules (locations ignored). Stages can use it to
// compare subtrees; tests use it to show that reading printed text gives back the same tree.
#pragma once

#include "lowering/ir/module.hpp"

namespace tk::ir {

bool equal(const Expr& a, const Expr& b); // null equals null only
bool equal(const Stmt& a, const Stmt& b);
bool equal(const Module& a, const Module& b);

} // namespace tk::ir
