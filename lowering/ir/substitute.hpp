// Variables replaced by expressions: what a stage needs to specialise a loop body for one value of
// its index (a batch's row k, a chunk's key tile, the first work item) or to rename a loop.
#pragma once
#include "lowering/ir/visitor.hpp"

#include <map>
#include <string>

namespace tk::ir {

/// Replaces every read of a variable named in `by` with its expression; `mutate` it over an
/// expression or a statement. Names are not scoped: a stage substitutes names it made unique.
class Substitute : public Mutator {
public:
  std::map<std::string, Expr> by;

protected:
  Expr mutate_node(const Var& x, const Expr& self) override {
    auto it = by.find(x.name);
    return it == by.end() ? self : it->second;
  }
};

} // namespace tk::ir
