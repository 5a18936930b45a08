// ttgen check's AST walk, its values: constants, polynomials of the kernel's arguments, the CB a
// pointer points into (walk_values.hpp).
#include "check/walk_values.hpp"

#include <clang/AST/ASTContext.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include <functional>

namespace tk::check::walk {

bool contains(std::string_view s, std::string_view what) {
  return s.find(what) != std::string_view::npos;
}

Values::Values(clang::ASTContext& ctx, Kernel& kernel, bool ct_args_known)
    : ctx_(ctx), sm_(ctx.getSourceManager()), kernel_(kernel), ct_args_known_(ct_args_known) {}

const clang::Expr* strip(const clang::Expr* e) {
  return e->IgnoreParenImpCasts()->IgnoreCasts()->IgnoreParenImpCasts();
}

std::string callee_name(const clang::CallExpr* c) {
  const clang::FunctionDecl* fn = c->getDirectCallee();
  return fn ? fn->getNameAsString() : std::string();
}

bool Values::mentions_ct_arg(const clang::Stmt* s, int depth) const {
  if (!s || depth > 16)
    return false;
  if (const auto* c = llvm::dyn_cast<clang::CallExpr>(s)) {
    const std::string n = callee_name(c);
    if (n == "get_named_compile_time_arg_val" || n == "get_named_ct_arg" ||
        (!ct_args_known_ && (n == "get_compile_time_arg_val" || n == "get_ct_arg")))
      return true;
  }
  if (const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(s))
    if (const auto* v = llvm::dyn_cast<clang::VarDecl>(r->getDecl()))
      if (v->hasInit() && mentions_ct_arg(v->getInit(), depth + 1))
        return true;
  for (const clang::Stmt* child : s->children())
    if (mentions_ct_arg(child, depth))
      return true;
  return false;
}

bool never_assigned(const clang::VarDecl* v) {
  if (!v->isLocalVarDecl() || v->getType()->isReferenceType() || !v->getType()->isIntegerType())
    return false;
  const auto* fn = llvm::dyn_cast_or_null<clang::FunctionDecl>(v->getParentFunctionOrMethod());
  const clang::Stmt* body = fn ? fn->getBody() : nullptr;
  if (!body)
    return false;
  const auto is_v = [v](const clang::Expr* e) {
    const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
    return r && r->getDecl() == v;
  };
  std::function<bool(const clang::Stmt*)> changes = [&](const clang::Stmt* st) {
    if (!st)
      return false;
    if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(st);
        b && b->isAssignmentOp() && is_v(b->getLHS()))
      return true;
    if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(st);
        u && (u->isIncrementDecrementOp() || u->getOpcode() == clang::UO_AddrOf) &&
        is_v(u->getSubExpr()))
      return true;
    if (const auto* c = llvm::dyn_cast<clang::CallExpr>(st)) {
      const clang::FunctionDecl* callee = c->getDirectCallee();
      for (unsigned i = 0; i < c->getNumArgs(); ++i)
        if (is_v(c->getArg(i)) &&
            (!callee || i >= callee->getNumParams() ||
             (callee->getParamDecl(i)->getType()->isReferenceType() &&
              !callee->getParamDecl(i)->getType().getNonReferenceType().isConstQualified())))
          return true;
    }
    if (const auto* d = llvm::dyn_cast<clang::DeclStmt>(st))
      for (const clang::Decl* decl : d->decls())
        if (const auto* other = llvm::dyn_cast<clang::VarDecl>(decl);
            other && other->getType()->isReferenceType() && other->hasInit() &&
            is_v(other->getInit()))
          return true;
    for (const clang::Stmt* child : st->children())
      if (changes(child))
        return true;
    return false;
  };
  return !changes(body);
}

bool Values::stable(const clang::Stmt* s) const {
  if (!s || llvm::isa<clang::CallExpr>(s) || llvm::isa<clang::MemberExpr>(s))
    return false;
  if (const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
    if (llvm::isa<clang::EnumConstantDecl>(r->getDecl()))
      return true;
    const auto* v = llvm::dyn_cast<clang::VarDecl>(r->getDecl());
    if (!v || llvm::isa<clang::ParmVarDecl>(v))
      return false;
    return v->isConstexpr() || (v->getType().isConstQualified() && v->hasInit()) ||
           never_assigned(v);
  }
  for (const clang::Stmt* child : s->children())
    if (!stable(child))
      return false;
  return true;
}

const clang::Expr* Values::bound(const clang::Expr* e) const {
  const auto* r = e ? llvm::dyn_cast<clang::DeclRefExpr>(strip(e)) : nullptr;
  const auto* p = r ? llvm::dyn_cast<clang::ParmVarDecl>(r->getDecl()) : nullptr;
  auto it = p ? bound_.find(p) : bound_.end();
  return it == bound_.end() ? nullptr : it->second;
}

std::optional<std::int64_t> Values::constant(const clang::Expr* e) const {
  if (const clang::Expr* arg = bound(e))
    return constant(arg);
  if (!e || e->isValueDependent() || mentions_ct_arg(e))
    return std::nullopt;
  clang::Expr::EvalResult r;
  if (e->EvaluateAsInt(r, ctx_))
    return r.Val.getInt().getExtValue();
  return std::nullopt;
}

std::optional<std::int64_t> Values::read_ptr_cb(const clang::Expr* e, int depth) const {
  if (!e || depth > 8)
    return std::nullopt;
  e = strip(e);
  if (const auto* m = llvm::dyn_cast<clang::CXXMemberCallExpr>(e)) {
    if (class_of(*m) == "experimental::CircularBuffer" && callee_name(m) == "get_read_ptr")
      return object_cb(m->getImplicitObjectArgument());
    return std::nullopt;
  }
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(e)) {
    const clang::FunctionDecl* fn = call->getDirectCallee();
    if (fn && fn->getNameAsString() == "get_read_ptr" && call->getNumArgs() == 1)
      return constant(call->getArg(0));
    return std::nullopt;
  }
  if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e))
    return b->isAdditiveOp() ? read_ptr_cb(b->getLHS(), depth + 1) : std::nullopt;
  if (const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(e))
    if (const auto* v = llvm::dyn_cast<clang::VarDecl>(r->getDecl())) {
      if (auto it = ptr_vars_.find(v); it != ptr_vars_.end())
        return it->second;
      if (v->hasInit())
        return read_ptr_cb(v->getInit(), depth + 1);
    }
  return std::nullopt;
}

std::string class_of(const clang::CXXMemberCallExpr& m) {
  const clang::CXXMethodDecl* md = m.getMethodDecl();
  return md ? md->getParent()->getQualifiedNameAsString() : std::string();
}

bool is_cb_object(const clang::Expr* e) {
  const clang::CXXRecordDecl* r = e ? e->getType()->getAsCXXRecordDecl() : nullptr;
  return r && r->getQualifiedNameAsString() == "experimental::CircularBuffer";
}

std::optional<std::int64_t> Values::object_cb(const clang::Expr* e) const {
  if (!e)
    return std::nullopt;
  const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  const auto* v = r ? llvm::dyn_cast<clang::VarDecl>(r->getDecl()) : nullptr;
  if (!v || !v->hasInit())
    return std::nullopt;
  const clang::Expr* init = v->getInit()->IgnoreImplicit();
  if (const auto* cast = llvm::dyn_cast<clang::CXXFunctionalCastExpr>(init))
    init = cast->getSubExpr()->IgnoreImplicit();
  const auto* ctor = llvm::dyn_cast<clang::CXXConstructExpr>(init);
  if (!ctor || ctor->getNumArgs() < 1)
    return std::nullopt;
  return constant(ctor->getArg(0));
}

std::string Values::text(clang::SourceRange r) const {
  return clang::Lexer::getSourceText(
             clang::CharSourceRange::getTokenRange(sm_.getExpansionRange(r).getAsRange()), sm_,
             ctx_.getLangOpts())
      .str();
}

Poly Values::value(const clang::Expr* e, int depth) {
  if (const clang::Expr* arg = bound(e); arg && depth < 16)
    return value(arg, depth + 1);
  if (std::optional<std::int64_t> c = constant(e))
    return Poly::constant(*c);
  const clang::Expr* s = strip(e);
  if (depth < 16) {
    if (const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(s))
      if (const auto* v = llvm::dyn_cast<clang::VarDecl>(r->getDecl())) {
        const std::string name = v->getNameAsString();
        if (const auto* init = v->hasInit() ? strip(v->getInit()) : nullptr) {
          if (const auto* call = llvm::dyn_cast<clang::CallExpr>(init)) {
            const std::string n = callee_name(call);
            if (n == "get_arg_val" && call->getNumArgs() == 1)
              if (std::optional<std::int64_t> i = constant(call->getArg(0)))
                kernel_.arg_symbols[name] = *i;
            if (n == "get_arg_val" || n == "get_common_arg_val" ||
                n == "get_compile_time_arg_val" || n == "get_ct_arg" ||
                n == "get_named_compile_time_arg_val")
              return Poly::symbol(name);
          }
          // A local that is never assigned after its initialisation stands for its value.
          if (v->getType().isConstQualified() || v->isConstexpr() || never_assigned(v))
            return value(v->getInit(), depth + 1);
        }
        return Poly::symbol(name);
      }
    if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(s)) {
      switch (b->getOpcode()) {
      case clang::BO_Add:
        return value(b->getLHS(), depth + 1) + value(b->getRHS(), depth + 1);
      case clang::BO_Sub:
        return value(b->getLHS(), depth + 1) - value(b->getRHS(), depth + 1);
      case clang::BO_Mul:
        return value(b->getLHS(), depth + 1) * value(b->getRHS(), depth + 1);
      case clang::BO_Rem:
        // x % B = x - B * (x / B) for a constant B (C++ division truncates, so for every x): the
        // quotient is the symbol `x / B` reads as, so loops that split a count into batches
        // (`for qb < q / 4`, then `.. q % 4 / 2`, then the `q % 4 % 2` left) sum to the count.
        if (std::optional<std::int64_t> m = constant(b->getRHS()); m && *m != 0)
          return value(b->getLHS(), depth + 1) -
                 Poly::constant(*m) * Poly::symbol("(" + text(b->getLHS()->getSourceRange()) +
                                                   " / " + std::to_string(*m) + ")");
        break;
      default:
        break;
      }
    }
  }
  return Poly::symbol("(" + text(e->getSourceRange()) + ")");
}

} // namespace tk::check::walk
