// IR helpers every chain shares: fresh names, counting uses of a variable, finding calls and
// functions, dropping unused integer lets, index-math folding, and the tile count that to-tile-ir
// bound per dimension. One copy of each, for the front, TT and CPU stages and the render layer.
#pragma once

#include "lowering/ir/module.hpp"
#include "lowering/ir/visitor.hpp"

#include <map>
#include <set>
#include <string>

namespace tk::ir {

/// Every name a function uses (parameters, locals, loop variables) plus the program's tensors,
/// CBs and functions; `fresh` hands out names that collide with none of them.
class NameSet {
public:
  NameSet() = default;
  explicit NameSet(const ir::Program& p);
  void add(const ir::Function& f);
  void add(const std::string& n) { used_.insert(n); }
  bool contains(const std::string& n) const { return used_.count(n) > 0; }
  /// `base` if unused, else base_1, base_2, ...; the result is marked used.
  std::string fresh(const std::string& base);
  /// base0, base1, ... skipping used names; for numbered temporaries.
  std::string numbered(const std::string& base);

private:
  std::set<std::string> used_;
  int next_ = 0;
};

/// How many times `var` is read or assigned inside `s` (any depth).
int count_mentions(const ir::Stmt& s, const std::string& var);
int count_mentions(const ir::Expr& e, const std::string& var);
/// The variables read anywhere in `s` / `e`.
std::set<std::string> vars_read(const ir::Stmt& s);
std::set<std::string> vars_read(const ir::Expr& e);
/// Every call of `fn` in `s`, in program order.
std::vector<const ir::Call*> calls_of(const ir::Stmt& s, ir::Intrinsic fn);
/// True when `node` (an expression or statement) reads or assigns the variable `name`.
template <class Node>
bool mentions(const Node& node, const std::string& name) {
  return count_mentions(node, name) > 0;
}
/// True if `s` calls any intrinsic for which `pred` holds.
bool any_call(const ir::Stmt& s, bool (*pred)(ir::Intrinsic));

/// Removes `let`s of non-tile values that nothing reads (repeatedly, innermost first), and loops
/// whose bodies end up empty.
ir::Stmt drop_dead_code(const ir::Stmt& s);

/// `a * b` and `a + b` with 0 and 1 folded, for page and count expressions.
ir::Expr mul(ir::Expr a, ir::Expr b);
ir::Expr add(ir::Expr a, ir::Expr b);

/// dimension name -> the tile-count variable to-tile-ir declared for it (`let Kt: i32 = K / 32`
/// at the top of the kernel function).
std::map<std::string, std::string> tile_count_vars(const ir::Function& kernel);

/// The tile count of a tensor dimension: its tile-count variable, or the literal rounded up to
/// whole tiles (a vector dimension of 1 is one tile).
ir::Expr tiles_of(const ir::Dim& d, const std::map<std::string, std::string>& tile_counts);

/// The nest of parallel loops starting at `s`, outermost first (a parallel loop whose body is one
/// parallel loop continues the nest); `body` gets the innermost loop's body. Empty when `s` is not
/// a parallel loop.
std::vector<const ir::For*> parallel_nest(const ir::Stmt& s, ir::Stmt& body);

/// The first function of the kind, or null.
ir::Function* find_function(ir::Program& p, ir::FuncKind kind);
const ir::Function* find_function(const ir::Program& p, ir::FuncKind kind);

} // namespace tk::ir
