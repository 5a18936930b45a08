// ttgen check's AST walk: a kernel_main, and the helpers it calls that reach the CB or DST API,
// summarised into the events, loops and branches of model.hpp (docs/check.md, "What it proves").
// The translation unit it walks is built by frontend.cpp; the values of its expressions are read
// by walk_values.cpp.
#include "check/walk.hpp"
#include "check/walk_values.hpp"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Stmt.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

namespace tk::check {

namespace {

using namespace walk;

/// Summarises kernel_main: events in program order, loops and branches around them.
class Summarizer : private Values {
public:
  /// `ct_args_known`: as Values'.
  /// `sdk_dirs`: the folders of the SDK's own headers (the mirror, or the tt_metal/ of --sdk's
  /// tree): a helper defined anywhere else (the kernel's file, a library of kernel helpers such
  /// as TTNN's kernel_lib) is followed where it is called.
  Summarizer(clang::ASTContext& ctx, clang::FileID file, Kernel& kernel, bool ct_args_known,
             std::vector<std::string> sdk_dirs = {})
      : Values(ctx, kernel, ct_args_known), file_(file), sdk_dirs_(std::move(sdk_dirs)) {}

  void function(const clang::FunctionDecl& fn, Body& out) {
    if (const clang::Stmt* body = fn.getBody())
      stmt(body, out);
  }

private:
  // ---- locations -------------------------------------------------------------------------------
  SourceRange range(clang::SourceRange r) const {
    clang::CharSourceRange cr = sm_.getExpansionRange(r);
    clang::SourceLocation b = cr.getBegin();
    clang::SourceLocation e =
        clang::Lexer::getLocForEndOfToken(cr.getEnd(), 0, sm_, ctx_.getLangOpts());
    if (sm_.getFileID(b) != file_)
      return site_.value_or(SourceRange{}); // in a followed helper of another file: its call
    const unsigned begin = sm_.getFileOffset(b);
    const unsigned end = e.isValid() && sm_.getFileID(e) == file_ ? sm_.getFileOffset(e) : begin;
    return {begin, end};
  }

  // ---- statements ------------------------------------------------------------------------------
  void stmt(const clang::Stmt* s, Body& out) {
    if (!s)
      return;
    if (const auto* c = llvm::dyn_cast<clang::CompoundStmt>(s)) {
      for (const clang::Stmt* x : c->body())
        stmt(x, out);
    } else if (const auto* f = llvm::dyn_cast<clang::ForStmt>(s)) {
      for_loop(*f, out);
    } else if (const auto* w = llvm::dyn_cast<clang::WhileStmt>(s)) {
      Loop l;
      l.range = range(w->getCond()->getSourceRange());
      stmt(w->getBody(), l.body);
      out.push_back({std::move(l)});
    } else if (const auto* d = llvm::dyn_cast<clang::DoStmt>(s)) {
      Loop l;
      l.range = range(d->getCond()->getSourceRange());
      stmt(d->getBody(), l.body);
      out.push_back({std::move(l)});
    } else if (const auto* i = llvm::dyn_cast<clang::IfStmt>(s)) {
      Branch b;
      b.range = range(i->getCond()->getSourceRange());
      if (i->isConstexpr()) {
        b.known = constant(i->getCond()).value_or(0) != 0;
      } else if (!mentions_ct_arg(i->getCond())) {
        bool v = false;
        if (i->getCond()->EvaluateAsBooleanCondition(v, ctx_))
          b.known = v;
      }
      b.cond = text(i->getCond()->getSourceRange());
      b.stable = stable(i->getCond());
      expr(i->getCond(), out);
      stmt(i->getThen(), b.then_body);
      stmt(i->getElse(), b.else_body);
      out.push_back({std::move(b)});
    } else if (const auto* e = llvm::dyn_cast<clang::Expr>(s)) {
      expr(e, out);
    } else if (const auto* decl = llvm::dyn_cast<clang::DeclStmt>(s)) {
      for (const clang::Decl* dd : decl->decls())
        if (const auto* v = llvm::dyn_cast<clang::VarDecl>(dd); v && v->hasInit()) {
          expr(v->getInit(), out);
          take_ptr(*v, v->getInit(), range(v->getSourceRange()), out);
        }
    } else {
      for (const clang::Stmt* child : s->children())
        stmt(child, out);
    }
  }

  /// `for (T v = a; v < b; ++v)` (or `v != b`, `v <= b`, `v++`, `v += 1`): b - a trips.
  void for_loop(const clang::ForStmt& f, Body& out) {
    Loop l;
    l.range = range(clang::SourceRange(f.getBeginLoc(), f.getRParenLoc()));
    if (f.getInit())
      stmt(f.getInit(), out);
    const clang::VarDecl* var = nullptr;
    const clang::Expr* from = nullptr;
    if (const auto* d = llvm::dyn_cast_or_null<clang::DeclStmt>(f.getInit());
        d && d->isSingleDecl())
      if ((var = llvm::dyn_cast<clang::VarDecl>(d->getSingleDecl())))
        from = var->getInit();
    const auto is_var = [&](const clang::Expr* e) {
      const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(strip(e));
      return var && r && r->getDecl() == var;
    };
    // The increment of the loop variable by one, possibly beside others: `++w, id += stride`.
    std::function<bool(const clang::Expr*)> steps = [&](const clang::Expr* inc) -> bool {
      if (!inc)
        return false;
      inc = inc->IgnoreParens();
      if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(inc))
        return u->isIncrementOp() && is_var(u->getSubExpr());
      if (const auto* c = llvm::dyn_cast<clang::CompoundAssignOperator>(inc))
        return c->getOpcode() == clang::BO_AddAssign && is_var(c->getLHS()) &&
               constant(c->getRHS()) == 1;
      if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(inc);
          b && b->getOpcode() == clang::BO_Comma)
        return steps(b->getLHS()) != steps(b->getRHS()); // exactly one side steps it
      return false;
    };
    const bool step_one = steps(f.getInc());
    if (from && step_one)
      if (const auto* cond = llvm::dyn_cast_or_null<clang::BinaryOperator>(f.getCond())) {
        const clang::Expr* to = nullptr;
        std::int64_t extra = 0;
        if (is_var(cond->getLHS()) &&
            (cond->getOpcode() == clang::BO_LT || cond->getOpcode() == clang::BO_NE))
          to = cond->getRHS();
        else if (is_var(cond->getLHS()) && cond->getOpcode() == clang::BO_LE)
          to = cond->getRHS(), extra = 1;
        if (to) {
          l.trips = value(to) + Poly::constant(extra) - value(from);
          l.var = var->getNameAsString();
          if (l.trips->is_constant() && l.trips->constant_value() < 0)
            l.trips = Poly::constant(0);
        }
      }
    stmt(f.getBody(), l.body);
    out.push_back({std::move(l)});
  }

  // ---- calls -----------------------------------------------------------------------------------
  /// `v = get_read_ptr(cb) [+ offset]`, as a declaration or an assignment: v points into the
  /// front of cb until cb_pop_front frees its pages.
  void take_ptr(const clang::VarDecl& v, const clang::Expr* init, SourceRange where, Body& out) {
    std::optional<std::int64_t> cb = read_ptr_cb(init);
    if (!cb)
      return;
    ptr_vars_[&v] = *cb;
    Event ev{
        EventKind::ptr_take, v.getNameAsString(), "get_read_ptr", cb, {}, {}, false, {}, {}, where};
    ev.var = v.getNameAsString();
    out.push_back({std::move(ev)});
  }

  void expr(const clang::Expr* e, Body& out) {
    if (!e)
      return;
    if (llvm::isa<clang::LambdaExpr>(e))
      return;
    if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e); b && b->isAssignmentOp())
      if (const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(b->getLHS()->IgnoreParenImpCasts()))
        if (const auto* v = llvm::dyn_cast<clang::VarDecl>(r->getDecl());
            v && b->getOpcode() == clang::BO_Assign) {
          expr(b->getRHS(), out);
          take_ptr(*v, b->getRHS(), range(b->getSourceRange()), out);
          return;
        }
    if (const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(e))
      if (const auto* v = llvm::dyn_cast<clang::VarDecl>(r->getDecl()))
        if (auto it = ptr_vars_.find(v); it != ptr_vars_.end()) {
          Event ev{EventKind::ptr_use,
                   v->getNameAsString(),
                   v->getNameAsString(),
                   it->second,
                   {},
                   {},
                   false,
                   {},
                   {},
                   range(r->getSourceRange())};
          ev.var = v->getNameAsString();
          out.push_back({std::move(ev)});
        }
    for (const clang::Stmt* child : e->children())
      if (const auto* ce = llvm::dyn_cast_or_null<clang::Expr>(child))
        expr(ce, out);
    if (const auto* c = llvm::dyn_cast<clang::CallExpr>(e))
      call(*c, out);
  }

  std::optional<std::int64_t> arg(const clang::CallExpr& c, unsigned i) const {
    return i < c.getNumArgs() ? constant(c.getArg(i)) : std::nullopt;
  }

  void call(const clang::CallExpr& c, Body& out) {
    const clang::FunctionDecl* fn = c.getDirectCallee();
    if (!fn)
      return;
    const std::string name = fn->getNameAsString();
    Event ev{EventKind::arg,           text(c.getSourceRange()), name, {}, {}, {}, false, {}, {},
             range(c.getSourceRange())};
    if (const auto* m = llvm::dyn_cast<clang::CXXMemberCallExpr>(&c); m && device2(*m, ev, out))
      return;
    if (name == "acquire_dst" || name == "release_dst") {
      ev.kind = name == "acquire_dst" ? EventKind::acquire_dst : EventKind::release_dst;
      out.push_back({std::move(ev)});
      return;
    }
    static const std::pair<const char*, EventKind> kCb[] = {{"cb_reserve_back", EventKind::reserve},
                                                            {"cb_push_back", EventKind::push},
                                                            {"cb_wait_front", EventKind::wait},
                                                            {"cb_pop_front", EventKind::pop}};
    for (const auto& [n, kind] : kCb)
      if (name == n && c.getNumArgs() == 2) {
        ev.kind = kind;
        ev.cb = arg(c, 0);
        ev.pages = value(c.getArg(1));
        out.push_back({std::move(ev)});
        return;
      }
    static const std::pair<const char*, EventKind> kSimple[] = {
        {"tile_regs_acquire", EventKind::acquire}, {"tile_regs_commit", EventKind::commit},
        {"tile_regs_wait", EventKind::dst_wait},   {"tile_regs_release", EventKind::release},
        {"get_write_ptr", EventKind::write_ptr},   {"get_read_ptr", EventKind::read_ptr}};
    for (const auto& [n, kind] : kSimple)
      if (name == n) {
        ev.kind = kind;
        if (c.getNumArgs() > 0)
          ev.cb = arg(c, 0);
        out.push_back({std::move(ev)});
        return;
      }
    if (name == "get_arg_val") {
      ev.arg_index = arg(c, 0);
      out.push_back({std::move(ev)});
      return;
    }
    // NoC transfers and their barriers. A write's source (the first argument of noc_async_write
    // and the multicasts, the third of noc_async_write_page / _tile) names its CB when it is
    // get_read_ptr(cb), plus an offset or not, directly or through a variable.
    static const std::pair<const char*, EventKind> kNoc[] = {
        {"noc_async_read", EventKind::noc_read},
        {"noc_async_read_page", EventKind::noc_read},
        {"noc_async_read_tile", EventKind::noc_read},
        {"noc_async_write", EventKind::noc_write},
        {"noc_async_write_page", EventKind::noc_write},
        {"noc_async_write_tile", EventKind::noc_write},
        {"noc_async_write_multicast", EventKind::noc_write},
        {"noc_async_write_multicast_loopback_src", EventKind::noc_write},
        {"noc_async_read_barrier", EventKind::read_barrier},
        {"noc_async_writes_flushed", EventKind::write_flush},
        {"noc_async_write_barrier", EventKind::write_flush},
        {"noc_async_full_barrier", EventKind::full_barrier}};
    for (const auto& [n, kind] : kNoc)
      if (name == n) {
        ev.kind = kind;
        const unsigned src = contains(name, "_page") || contains(name, "_tile") ? 2 : 0;
        if (kind == EventKind::noc_write && src < c.getNumArgs())
          ev.cb = read_ptr_cb(c.getArg(src));
        out.push_back({std::move(ev)});
        return;
      }
    // A compute API call that names a DST slot: math, or pack_tile (which reads DST).
    const std::string header = sm_.getFilename(sm_.getSpellingLoc(fn->getLocation())).str();
    if (contains(header, "api/compute/") && !contains(name, "init")) {
      std::vector<std::int64_t> cbs, tiles;
      for (unsigned i = 0; i < fn->getNumParams() && i < c.getNumArgs(); ++i) {
        const std::string p = fn->getParamDecl(i)->getNameAsString();
        std::optional<std::int64_t> v = arg(c, i);
        if (contains(p, "dst")) {
          if (v)
            ev.dst.push_back(*v);
          else
            ev.dst_unknown = true;
        } else if (contains(p, "cb")) {
          cbs.push_back(v.value_or(-1));
        } else if (contains(p, "tile")) {
          tiles.push_back(v.value_or(-1));
        }
      }
      if (ev.dst.empty() && !ev.dst_unknown && !touches(fn).any())
        return; // a configuration call, not math
      if (ev.dst.empty() && !ev.dst_unknown) {
        opaque(c, *fn, ev, out);
        return;
      }
      if (name == "pack_tile") {
        ev.kind = EventKind::pack;
        ev.cb = cbs.empty() || cbs[0] < 0 ? std::nullopt : std::optional<std::int64_t>(cbs[0]);
      } else {
        ev.kind = EventKind::math;
        for (std::size_t k = 0; k < cbs.size() && k < tiles.size(); ++k)
          if (cbs[k] >= 0 && tiles[k] >= 0)
            ev.reads.emplace_back(cbs[k], tiles[k]);
      }
      out.push_back({std::move(ev)});
      return;
    }
    // A helper defined in the kernel file, or one of a kernel library (not the SDK's, not a
    // system header) that reaches the CB or DST API, such as TTNN's compute_kernel_lib::reduce:
    // its events, where it is called, with each parameter standing for the argument it was called
    // with (a CB index, a count); a library helper's events are located at its call in the
    // kernel's file.
    // A recursive call is not followed: it is a call ttgen check does not model.
    if (const clang::FunctionDecl* def = fn->getDefinition();
        def && def->hasBody() && depth_ < 8 && !llvm::isa<clang::CXXOperatorCallExpr>(c) &&
        std::find(following_.begin(), following_.end(), def) == following_.end() &&
        (sm_.getFileID(sm_.getExpansionLoc(def->getLocation())) == file_ ||
         (library_helper(*def) && touches(def).any()))) {
      std::map<const clang::ParmVarDecl*, const clang::Expr*> saved = bound_;
      for (unsigned i = 0; i < def->getNumParams() && i < c.getNumArgs(); ++i)
        bound_[def->getParamDecl(i)] = c.getArg(i);
      const std::optional<SourceRange> site = site_;
      if (!site_)
        site_ = range(c.getSourceRange());
      ++depth_;
      following_.push_back(def);
      function(*def, out);
      following_.pop_back();
      --depth_;
      site_ = site;
      bound_ = std::move(saved);
      return;
    }
    if (touches(fn).any())
      opaque(c, *fn, ev, out);
  }

  // ---- Device 2.0 ------------------------------------------------------------------------------
  /// A method of tt-metal's Device 2.0 classes (tt_metal/hw/inc/experimental/circular_buffer.h,
  /// noc.h): the same events as the dataflow API calls each wraps. False for any other method.
  bool device2(const clang::CXXMemberCallExpr& m, Event& ev, Body& out) {
    const std::string cls = class_of(m);
    const std::string method = callee_name(&m);
    if (cls == "experimental::CircularBuffer") {
      static const std::pair<const char*, std::pair<EventKind, const char*>> kCb[] = {
          {"reserve_back", {EventKind::reserve, "cb_reserve_back"}},
          {"push_back", {EventKind::push, "cb_push_back"}},
          {"wait_front", {EventKind::wait, "cb_wait_front"}},
          {"pop_front", {EventKind::pop, "cb_pop_front"}},
          {"get_write_ptr", {EventKind::write_ptr, "get_write_ptr"}},
          {"get_read_ptr", {EventKind::read_ptr, "get_read_ptr"}}};
      for (const auto& [n, kind] : kCb)
        if (method == n) {
          ev.kind = kind.first;
          ev.name = kind.second;
          ev.cb = object_cb(m.getImplicitObjectArgument());
          if (m.getNumArgs() == 1)
            ev.pages = value(m.getArg(0));
          out.push_back({std::move(ev)});
          return true;
        }
      return false;
    }
    if (cls == "experimental::Noc") {
      static const std::pair<const char*, EventKind> kNoc[] = {
          {"async_read", EventKind::noc_read},
          {"async_write", EventKind::noc_write},
          {"async_write_multicast", EventKind::noc_write},
          {"async_read_barrier", EventKind::read_barrier},
          {"async_write_barrier", EventKind::write_flush},
          {"async_writes_flushed", EventKind::write_flush},
          {"async_full_barrier", EventKind::full_barrier}};
      for (const auto& [n, kind] : kNoc)
        if (method == n) {
          ev.kind = kind;
          // A write's source is its first argument: a CircularBuffer names its CB.
          if (kind == EventKind::noc_write && m.getNumArgs() > 0)
            ev.cb = is_cb_object(m.getArg(0)) ? object_cb(m.getArg(0)) : read_ptr_cb(m.getArg(0));
          out.push_back({std::move(ev)});
          return true;
        }
    }
    return false;
  }

  /// True when `def` is defined in a header of a kernel library: not a system header and not one
  /// of the SDK's own (sdk_dirs_), whose calls ttgen check models or treats as opaque.
  bool library_helper(const clang::FunctionDecl& def) const {
    const clang::SourceLocation loc = sm_.getExpansionLoc(def.getLocation());
    if (sdk_dirs_.empty() || sm_.isInSystemHeader(loc) || sm_.getFileID(loc) == file_)
      return false;
    const std::string file =
        std::filesystem::absolute(sm_.getFilename(loc).str()).lexically_normal().string();
    for (const std::string& dir : sdk_dirs_)
      if (file.rfind(dir, 0) == 0)
        return false;
    // The SDK's headers in any tt-metal tree on the include path (-I).
    for (const char* sdk : {"/tt_metal/hw/", "/tt_metal/api/", "/tt_metal/tt-llk/",
                            "/tt_metal/hostdevcommon/", "/tt_metal/include/"})
      if (contains(file, sdk))
        return false;
    return !file.empty() && !contains(file, "tk_check_wrapper");
  }

  // ---- calls it does not model -----------------------------------------------------------------
  struct Reach {
    bool cb = false, dst = false;
    bool any() const { return cb || dst; }
  };

  /// Whether `fn`'s body (through the functions it calls, as far as their bodies are in the
  /// translation unit) calls a CB or DST function of the SDK.
  Reach touches(const clang::FunctionDecl* fn, int depth = 0) {
    static const std::set<std::string> kCbCalls = {"cb_reserve_back", "cb_push_back",
                                                   "cb_wait_front", "cb_pop_front"};
    static const std::set<std::string> kDstCalls = {
        "tile_regs_acquire", "tile_regs_commit", "tile_regs_wait", "tile_regs_release",
        "acquire_dst",       "release_dst",      "pack_tile"};
    if (!fn)
      return {};
    fn = fn->getDefinition() ? fn->getDefinition() : fn;
    if (auto it = reach_.find(fn); it != reach_.end())
      return it->second;
    Reach r;
    reach_[fn] = r; // a recursive call adds nothing
    if (depth < 12 && fn->hasBody()) {
      std::function<void(const clang::Stmt*)> scan = [&](const clang::Stmt* s) {
        if (!s)
          return;
        if (const auto* c = llvm::dyn_cast<clang::CallExpr>(s))
          if (const clang::FunctionDecl* callee = c->getDirectCallee()) {
            const std::string n = callee->getNameAsString();
            const auto* m = llvm::dyn_cast<clang::CXXMemberCallExpr>(c);
            static const std::set<std::string> kCbMethods = {"reserve_back", "push_back",
                                                             "wait_front", "pop_front"};
            r.cb |= kCbCalls.count(n) > 0 ||
                    (m && class_of(*m) == "experimental::CircularBuffer" && kCbMethods.count(n));
            r.dst |= kDstCalls.count(n) > 0;
            const Reach inner = touches(callee, depth + 1);
            r.cb |= inner.cb;
            r.dst |= inner.dst;
          }
        for (const clang::Stmt* child : s->children())
          scan(child);
      };
      scan(fn->getBody());
    }
    reach_[fn] = r;
    return r;
  }

  /// A call that reaches CB or DST calls ttgen check does not model: the CB it names (a constant
  /// argument of a CB parameter, or the CircularBuffer it is called on), else every CB, and DST,
  /// are unknown after it.
  void opaque(const clang::CallExpr& c, const clang::FunctionDecl& fn, Event& ev, Body& out) {
    const Reach r = touches(&fn);
    ev.kind = EventKind::opaque;
    ev.opaque_cbs = r.cb;
    ev.opaque_dst = r.dst;
    if (const auto* m = llvm::dyn_cast<clang::CXXMemberCallExpr>(&c);
        m && is_cb_object(m->getImplicitObjectArgument()))
      ev.cb = object_cb(m->getImplicitObjectArgument());
    for (unsigned i = 0; !ev.cb && i < fn.getNumParams() && i < c.getNumArgs(); ++i) {
      const std::string p = fn.getParamDecl(i)->getNameAsString();
      if (contains(p, "cb") || is_cb_object(c.getArg(i)))
        ev.cb = is_cb_object(c.getArg(i)) ? object_cb(c.getArg(i)) : arg(c, i);
    }
    if (const auto* mc = llvm::dyn_cast<clang::CXXMemberCallExpr>(&c))
      ev.name = class_of(*mc) + "::" + ev.name;
    out.push_back({std::move(ev)});
  }

  clang::FileID file_;
  std::vector<std::string> sdk_dirs_;
  int depth_ = 0;
  // The helpers being followed, outermost first.
  std::vector<const clang::FunctionDecl*> following_;
  // Inside a followed library helper: the range of its call in the kernel's file.
  std::optional<SourceRange> site_;
  std::map<const clang::FunctionDecl*, Reach> reach_;
};

} // namespace

void walk_kernel_main(clang::ASTContext& ctx, clang::FileID file, Kernel& kernel,
                      bool ct_args_known, std::vector<std::string> sdk_dirs,
                      const clang::FunctionDecl& main_fn) {
  Summarizer s(ctx, file, kernel, ct_args_known, std::move(sdk_dirs));
  s.function(main_fn, kernel.body);
}

} // namespace tk::check
