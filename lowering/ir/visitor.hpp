// Visitor (read-only walk) and Mutator (rebuilding walk) over the tile IR, both dispatched from
// the node X-macros. A Mutator returns the very same node when nothing below it changed, so a
// stage that changed nothing returns an identical module (the driver prints `(unchanged)`).
#pragma once

#include "lowering/ir/module.hpp"
#include "lowering/ir/nodes.hpp"

namespace tk::ir {

class Visitor {
public:
  virtual ~Visitor() = default;
  void visit(const Expr& e); // null-safe
  void visit(const Stmt& s); // null-safe

protected:
  // Defaults visit every child in order.
#define TK_X(n) virtual void visit_node(const n& node);
  TK_IR_EXPR_NODES(TK_X)
  TK_IR_STMT_NODES(TK_X)
#undef TK_X
};

class Mutator {
public:
  virtual ~Mutator() = default;
  Expr mutate(const Expr& e); // null-safe
  Stmt mutate(const Stmt& s); // null-safe
  /// Mutates every function body; unchanged functions keep their body pointer.
  Module mutate(const Module& m);

protected:
  // `self` is the node as a shared pointer, returned when nothing changed. Defaults rebuild a
  // node only when one of its children changed.
#define TK_X(n) virtual Expr mutate_node(const n& node, const Expr& self);
  TK_IR_EXPR_NODES(TK_X)
#undef TK_X
#define TK_X(n) virtual Stmt mutate_node(const n& node, const Stmt& self);
  TK_IR_STMT_NODES(TK_X)
#undef TK_X
  /// Called for each function before its body is mutated (stages use it to learn the context).
  virtual void enter_function(const Program&, const Function&) {}

  /// Mutates each element; true when any changed.
  bool mutate_all(const std::vector<Expr>& in, std::vector<Expr>& out);
};

} // namespace tk::ir
