// ttgen check's AST walk, its values (walk_values.cpp): what an expression of a kernel stands
// for — a constant, a polynomial of the kernel's arguments, the CB a pointer points into — as the
// statements and calls of walk.cpp read them. Internal to walk.cpp.
#pragma once

#include "check/model.hpp"

#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace clang {
class ASTContext;
class SourceManager;
} // namespace clang

namespace tk::check::walk {

bool contains(std::string_view s, std::string_view what);
/// `e` without parentheses, implicit and explicit casts.
const clang::Expr* strip(const clang::Expr* e);
/// The name of the function `c` calls directly ("" for an indirect call).
std::string callee_name(const clang::CallExpr* c);
/// The qualified name of the class whose method `m` calls.
std::string class_of(const clang::CXXMemberCallExpr& m);
/// True when `e` is a Device 2.0 experimental::CircularBuffer object.
bool is_cb_object(const clang::Expr* e);
/// True when local `v` is a plain value never changed after its initialisation in its
/// function: no assignment, increment or decrement of it, its address never taken, never bound
/// to a reference (`uint32_t end_id = start_id + num_pages;` then only read).
bool never_assigned(const clang::VarDecl* v);

/// The values of a kernel's expressions, with the arguments of the helpers being followed and
/// the pointers taken into CBs so far (both kept by the walk).
class Values {
public:
  /// `ct_args_known`: the compile-time args have the host's values (--compile-args), so what
  /// depends on them is evaluated, not a symbol.
  Values(clang::ASTContext& ctx, Kernel& kernel, bool ct_args_known);

  /// True when `e` depends on a compile-time argument whose value is a placeholder (a named one,
  /// or any without --compile-args), so such an expression is a symbol, never the placeholder.
  bool mentions_ct_arg(const clang::Stmt* s, int depth = 0) const;
  /// True when condition `e` names only values that never change in the kernel — constants and
  /// locals never assigned after their initialisation, none a parameter of a followed helper
  /// (which stands for another argument at each call) — and calls nothing: its value is the same
  /// wherever it is evaluated, so two branches on its text take the same side.
  bool stable(const clang::Stmt* s) const;
  /// The argument a followed helper's parameter `e` was called with (nullptr for anything else).
  const clang::Expr* bound(const clang::Expr* e) const;
  std::optional<std::int64_t> constant(const clang::Expr* e) const;
  /// The CB whose get_read_ptr `e` is, plus an offset or not, directly or through the
  /// initializer of a variable.
  std::optional<std::int64_t> read_ptr_cb(const clang::Expr* e, int depth = 0) const;
  /// The CB of a Device 2.0 experimental::CircularBuffer object: the constant its variable was
  /// constructed with (`experimental::CircularBuffer cb(tt::CBIndex::c_0)`, or `auto cb =
  /// experimental::CircularBuffer(cb_out)` in a helper whose `cb_out` is bound to a constant, as
  /// TTNN's softmax), else nullopt.
  std::optional<std::int64_t> object_cb(const clang::Expr* e) const;
  /// The source text of `r` (its expansion, for a macro).
  std::string text(clang::SourceRange r) const;
  /// `e` as a polynomial of the kernel's arguments; a runtime argument read into a variable
  /// records its index in the kernel's arg_symbols.
  Poly value(const clang::Expr* e, int depth = 0);

protected:
  clang::ASTContext& ctx_;
  clang::SourceManager& sm_;
  Kernel& kernel_;
  bool ct_args_known_;
  // The parameters of the library helpers being followed, each with its call's argument.
  std::map<const clang::ParmVarDecl*, const clang::Expr*> bound_;
  std::map<const clang::VarDecl*, std::int64_t> ptr_vars_; // get_read_ptr(cb) [+ offset] -> cb
};

} // namespace tk::check::walk
