#include "lowering/tt/chunk_rows.hpp"

#include "lowering/ir/substitute.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/tt/cb_tile_args.hpp"
#include "lowering/tt/target.hpp"

#include "include/tilekit/q_chunk.hpp"

#include <algorithm>
#include <map>

namespace tk::lower {

namespace {

using namespace tk::ir;

Expr subst(const Expr& e, const std::string& v, const Expr& by) {
  Substitute s;
  s.by[v] = by;
  return s.mutate(e);
}

const Call* call_of(const Stmt& s) {
  const Evaluate* e = as<Evaluate>(s);
  return e ? as<Call>(e->call) : nullptr;
}

bool names_cb(const Expr& e, const std::string& cb) {
  const Ref* r = as<Ref>(e);
  return r && r->name == cb;
}

// The coefficient of `v` in an affine integer expression (`(h * St + i) * Dt` in i: Dt); null when
// `e` does not read `v` or is not affine in it.
Expr coefficient(const Expr& e, const std::string& v) {
  if (const Var* x = as<Var>(e))
    return x->name == v ? int_imm(1) : nullptr;
  const Binary* b = as<Binary>(e);
  if (!b || !ir::mentions(e, v))
    return nullptr;
  const Expr ca = coefficient(b->a, v), cb = coefficient(b->b, v);
  const bool in_a = ir::mentions(b->a, v), in_b = ir::mentions(b->b, v);
  if ((in_a && !ca) || (in_b && !cb))
    return nullptr;
  switch (b->op) {
  case BinaryOp::add:
    return ca && cb ? ir::add(ca, cb) : ca ? ca : cb;
  case BinaryOp::sub:
    return ca && cb ? ca - cb : ca ? ca : nullptr;
  case BinaryOp::mul:
    return in_a && in_b ? nullptr : ca ? ir::mul(ca, b->b) : ir::mul(b->a, cb);
  default:
    return nullptr;
  }
}

// Whether `s` names the circular buffer `cb`.
struct RefFinder : Visitor {
  const std::string& cb;
  bool found = false;
  explicit RefFinder(const std::string& c) : cb(c) {}
  void visit_node(const Ref& r) override { found = found || r.name == cb; }
};
bool refers_to(const Stmt& s, const std::string& cb) {
  RefFinder f(cb);
  f.visit(s);
  return f.found;
}

// The CB a call works on (its first argument), or empty.
std::string cb_of(const Call* c) {
  if (!c || c->args.empty())
    return {};
  const Ref* r = as<Ref>(c->args[0]);
  return r && r->type.kind == Type::Kind::cb ? r->name : std::string();
}

// `e` with every variable and literal of type `t` (a host size expression in the kernel's i32 or
// the other way round), a product by 1 folded; null when it holds anything else.
Expr retype(const Expr& e, Type t) {
  if (const Var* v = as<Var>(e))
    return var(v->name, t);
  if (const IntImm* i = as<IntImm>(e))
    return int_imm(i->value, t);
  if (const Binary* b = as<Binary>(e)) {
    Expr a = retype(b->a, t), c = retype(b->b, t);
    if (!a || !c)
      return nullptr;
    return b->op == BinaryOp::mul ? ir::mul(a, c) : binary(b->op, a, c); // H * 1: H
  }
  return nullptr;
}

// The largest chunk the Q chunk rule considers (the row state's CBs hold that many rows; the
// rule's costs are given for q = 1, 2, 4, 8, its divisors). The rule's compute costs
// (include/tilekit/q_chunk.hpp, QChunkLimits::keys and costs) are left 0 here: price-q-chunk
// prices the compute kernel's pieces once the later stages have written them (docs/lowering.md,
// "The rule for q").
constexpr std::int64_t kMaxQ = 8;

// The window of the row index holds the chunk's rows one after the other: every tile index a
// compute call reads from it moves by the row's offset. Which argument is the index of which CB
// argument is the SDK call's signature (cb_tile_args.hpp); any other use of the window is not a
// read this stage knows, and refuses.
struct WindowIndex : Mutator {
  std::string cb;
  Expr offset;
  std::string unknown; // the first call on the window this stage cannot move
  Expr mutate_node(const Call& c, const Expr& self) override {
    Expr m = Mutator::mutate_node(c, self);
    const Call* x = as<Call>(m);
    // (CB argument, its index)
    const std::vector<std::pair<std::size_t, std::size_t>> cb_index = tt::cb_tile_args(x->fn);
    if (cb_index.empty()) {
      for (const Expr& a : x->args)
        if (names_cb(a, cb) && unknown.empty())
          unknown = std::string(to_string(x->fn));
      return m;
    }
    std::vector<Expr> args = x->args;
    bool changed = false;
    for (auto [at, index] : cb_index)
      if (at < args.size() && index < args.size() && names_cb(args[at], cb)) {
        args[index] = ir::add(offset, args[index]);
        changed = true;
      }
    return changed ? call(x->fn, std::move(args), x->loc.range) : m;
  }
};

class Chunk {
public:
  // q = 0: the host's rule chooses q at run time (tt.q_chunk), a runtime value of the kernels.
  Chunk(Program& p, Function& k, std::int64_t q) : p_(p), k_(k), q_(q), names_(p) {}

  // Empty when the kernel was chunked, else why it is not of the shape the stage chunks.
  std::string run() {
    std::vector<Stmt> top = as<Block>(k_.body)->stmts;
    auto pc = std::find_if(top.begin(), top.end(), [](const Stmt& s) {
      const For* f = as<For>(s);
      return f && f->role == ForRole::per_core;
    });
    if (pc == top.end())
      return "it has no loop over its work items";
    const For& item = *as<For>(*pc);
    const std::vector<Stmt>& body = as<Block>(item.body)->stmts;

    // The key loop: the one loop of the item whose bound reads a row index the item decodes.
    std::size_t key = body.size();
    std::string row;
    for (std::size_t n = 0; n < body.size(); ++n) {
      const For* f = as<For>(body[n]);
      if (!f)
        continue;
      for (std::size_t d = 0; d < n; ++d)
        if (const Decl* x = as<Decl>(body[d]);
            x && (ir::mentions(f->extent, x->name) || ir::mentions(f->min, x->name))) {
          if (key != body.size() && key != n)
            return "two of its loops are bounded by a row index";
          key = n;
          row = x->name;
        }
    }
    if (key == body.size())
      return "no loop of its work item is bounded by the item's row index (a triangular key loop "
             "`for j in 0 .. i + 1`)";
    const For& keyloop = *as<For>(body[key]);

    // The row's extent (St): the one size its decode reads beside the item's id.
    std::string extent;
    for (std::size_t d = 0; d < key; ++d)
      if (const Decl* x = as<Decl>(body[d]); x && x->name == row) {
        std::set<std::string> r = ir::vars_read(x->value);
        r.erase(item.var);
        if (r.size() != 1)
          return "its row index '" + row + "' is not decoded from one size";
        extent = *r.begin();
      }
    if (extent.empty())
      return "its row index is not decoded from the work item";
    auto top_decl = std::find_if(top.begin(), pc, [&](const Stmt& s) {
      const Decl* d = as<Decl>(s);
      return d && d->name == extent;
    });
    if (top_decl == pc)
      return "the row's extent '" + extent + "' is not a size of the kernel";

    const std::string chunks = names_.fresh("chunks");
    const std::string c = names_.fresh("qc"), r = names_.fresh("qr");
    auto i32 = [](const std::string& n) { return var(n, Type::i32()); };
    if (q_ == 0) {
      q_name_ = names_.fresh("q");
      cols_name_ = names_.fresh("q_cols");
    }
    const Expr q = q_ == 0 ? i32(q_name_) : int_imm(q_);
    const Expr first = i32(c) * q; // c * q
    const std::string end_name = names_.fresh("qend");
    const Expr end = i32(end_name); // past the chunk's last row: min(c * q + q, St)
    const Expr own = binary(BinaryOp::min, first + i32(r), i32(extent) - int_imm(1));

    // Sort the item's statements.
    std::vector<Stmt> decode, pre, window, post, window_pop;
    std::string qcb;
    for (std::size_t n = 0; n < key; ++n) {
      const Stmt& s = body[n];
      if (const Decl* d = as<Decl>(s); d && ir::mentions(d->value, item.var)) {
        Expr v = subst(d->value, extent, i32(chunks));
        decode.push_back(decl(d->name == row ? c : d->name, d->type, v, s->loc.range));
        if (d->name == row) // a let, so that `ttgen check` counts the loops it bounds
          decode.push_back(decl(end_name, Type::i32(),
                                binary(BinaryOp::min, first + q, i32(extent)), s->loc.range));
        continue;
      }
      const Call* call_ = call_of(s);
      if (call_ && call_->fn == Intrinsic::df_read_block && ir::mentions(s, row)) {
        if (!qcb.empty())
          return "two windows are read at its row index";
        qcb = cb_of(call_);
        std::string why;
        Stmt read = chunk_read(*call_, row, first, end, s, why);
        if (!read)
          return why;
        window.push_back(read);
        continue;
      }
      if (call_ && call_->fn == Intrinsic::cb_wait_front && !qcb.empty() && cb_of(call_) == qcb) {
        window.push_back(s);
        continue;
      }
      if (ir::mentions(s, row) && as<Decl>(s))
        return "the row index is used before its key loop by '" + as<Decl>(s)->name + "'";
      pre.push_back(s);
    }
    if (qcb.empty())
      return "no window holds the row index's row (stream-rows' Q window)";
    for (std::size_t n = key + 1; n < body.size(); ++n) {
      const Call* call_ = call_of(body[n]);
      if (call_ && call_->fn == Intrinsic::cb_pop_front && cb_of(call_) == qcb)
        window_pop.push_back(body[n]);
      else
        post.push_back(body[n]);
    }

    // The key step: the windows it reads once for all the chunk's rows around a loop over them.
    std::vector<Stmt> before, step, after;
    std::set<std::string> shared;
    for (const Stmt& s : as<Block>(keyloop.body)->stmts) {
      const Call* call_ = call_of(s);
      const std::string cb = cb_of(call_);
      if (call_ && call_->fn == Intrinsic::df_read_block && !ir::mentions(s, row)) {
        shared.insert(cb);
        before.push_back(s);
      } else if (call_ && call_->fn == Intrinsic::cb_wait_front && shared.count(cb)) {
        before.push_back(s);
      } else if (call_ && call_->fn == Intrinsic::cb_pop_front && shared.count(cb)) {
        after.push_back(s);
      } else {
        step.push_back(s);
      }
    }
    if (shared.empty())
      return "its key loop reads no window shared by the chunk's rows";
    WindowIndex wi;
    wi.cb = qcb;
    wi.offset = (i32(row) - first) * cols();
    Stmt step_body = wi.mutate(block(step));
    if (!wi.unknown.empty())
      return "its key loop reads the row's window by " + wi.unknown;
    for (const Stmt& s : post)
      if (refers_to(s, qcb))
        return "it reads the row's window after the key loop";
    for (const Stmt& s : pre)
      if (refers_to(s, qcb))
        return "it reads the row's window before the key loop";

    // A loop over the chunk's rows, binding the row index when its statements read it (each loop
    // its own name, so that a kernel split-kernels leaves without a read drops it).
    auto rows = [&](std::vector<Stmt> stmts, SourceRange at, bool rename) {
      Stmt loop = block(std::move(stmts));
      if (ir::mentions(loop, row)) {
        std::string name = row;
        if (rename) {
          name = names_.fresh(row);
          Substitute to;
          to.by[row] = i32(name);
          loop = to.mutate(loop);
        }
        loop = block({decl(name, Type::i32(), own, at), loop});
      }
      return for_loop(r, int_imm(0), q, ForRole::serial, loop, at);
    };
    std::vector<Stmt> out = decode;
    if (!pre.empty())
      out.push_back(rows(pre, pre.front()->loc.range, true));
    out.insert(out.end(), window.begin(), window.end());
    std::vector<Stmt> key_body = before;
    key_body.push_back(rows(as<Block>(step_body)->stmts, keyloop.loc.range, false));
    key_body.insert(key_body.end(), after.begin(), after.end());
    // The key loop's bound at the chunk's last row: `i + 1` is the chunk's end.
    const Expr last = end - int_imm(1);
    const Binary* plus = as<Binary>(keyloop.extent);
    const Var* lhs = plus ? as<Var>(plus->a) : nullptr;
    const IntImm* one = plus ? as<IntImm>(plus->b) : nullptr;
    const Expr key_extent =
        plus && plus->op == BinaryOp::add && lhs && lhs->name == row && one && one->value == 1
            ? end
            : subst(keyloop.extent, row, last);
    out.push_back(for_loop(keyloop.var, subst(keyloop.min, row, last), key_extent, keyloop.role,
                           block(key_body), keyloop.loc.range));
    // A row's state waited for at the end of the key loop is row 0's, at the front; each later
    // row waits for its own before it reads and pops it (for row 0 the wait is already met).
    if (!post.empty()) {
      std::vector<Stmt> waits;
      std::set<std::string> seen;
      for (const Call* pk : ir::calls_of(block(pre), Intrinsic::pack_tile)) {
        const Ref* cb = pk->args.size() > 1 ? as<Ref>(pk->args[1]) : nullptr;
        const CircularBuffer* x = cb ? p_.find_cb(cb->name) : nullptr;
        if (x && x->role == CBRole::intermediate && refers_to(block(post), cb->name) &&
            seen.insert(cb->name).second)
          waits.push_back(evaluate(call(Intrinsic::cb_wait_front, {cb_ref(cb->name), int_imm(1)}),
                                   post.front()->loc.range));
      }
      post.insert(post.begin(), waits.begin(), waits.end());
      out.push_back(rows(post, post.front()->loc.range, true));
    }
    out.insert(out.end(), window_pop.begin(), window_pop.end());
    *pc =
        for_loop(item.var, item.min, item.extent, item.role, block(std::move(out)), item.loc.range);

    // Ct = ceil(St / q) chunks per head, in the kernel and the host; the items are the chunks.
    const Decl& st = *as<Decl>(*top_decl);
    if (q_ > 0) {
      top.insert(top_decl + 1,
                 decl(chunks, Type::i32(), (i32(extent) + int_imm(q_ - 1)) / q, st.loc.range));
    } else {
      // q, the window's pages per row and the chunks per head, after the sizes the rule reads.
      const Var* dt = as<Var>(stride_);
      auto dt_decl = std::find_if(top.begin(), pc, [&](const Stmt& s) {
        const Decl* d = as<Decl>(s);
        return dt && d && d->name == dt->name;
      });
      if (dt_decl == pc)
        return "the row's tiles per row are not a size of the kernel";
      std::string why;
      Expr rule = q_rule(extent, dt->name, Type::i32(), why);
      if (!rule)
        return why;
      const SourceRange at = st.loc.range;
      dt_host_ = as<Decl>(*dt_decl)->value;
      top.insert(std::max(top_decl, dt_decl) + 1,
                 {decl(q_name_, Type::i32(), rule, at),
                  decl(cols_name_, Type::i32(), int_imm(window_) / q, at),
                  decl(chunks, Type::i32(), (i32(extent) + q - int_imm(1)) / q, at)});
    }
    k_.body = block(std::move(top));
    if (std::string why = chunk_host(extent, chunks); !why.empty())
      return why;
    // A row's tiles fit the window's share of a row, W / q, and the row of tiles' CB holds q of
    // them; the host's row check says so. With q chosen at run time the rule keeps q * Dt within
    // the window (q = 1 streams a longer row past it), so the row's capacity stays.
    if (q_ > 0)
      for (RowOfTiles& x : p_.rows)
        x.capacity = std::min(x.capacity, window_cols_);
    return {};
  }

private:
  Program& p_;
  Function& k_;
  std::int64_t q_;
  NameSet names_;
  std::int64_t window_cols_ = 0;
  // q chosen at run time: the names of q and of the window's pages per row, the window's pages,
  // the page of the row's tiles, the pages from one row to the next (Dt) and its value.
  std::string q_name_, cols_name_;
  std::int64_t window_ = 0, page_ = 0;
  Expr stride_, dt_host_;

  // The host's rule for q at the program's grid and architecture (tt.q_chunk), in type t: H, the
  // heads (the host's work items per row), St, Dt, then the rule's constant inputs.
  Expr q_rule(const std::string& extent, const std::string& dt, Type t, std::string& why) {
    const Function* h = ir::find_function(p_, FuncKind::host);
    Expr items;
    if (h && p_.host_plan)
      for (const Stmt& s : as<Block>(h->body)->stmts)
        if (const Decl* d = as<Decl>(s); d && d->name == p_.host_plan->work_items)
          items = d->value;
    Expr heads = items ? retype(subst(items, extent, int_imm(1, Type::u32())), t) : nullptr;
    if (!heads) {
      why = "its host's work items are not a product of sizes and the row's extent";
      return nullptr;
    }
    const Grid g = tt::option_grid(p_);
    const arch::ArchSpec& a = tt::arch_of(p_);
    const auto k = [](std::int64_t v) { return int_imm(v); };
    // The key tiles of a chunk step and the compute costs are price-q-chunk's (0 until then).
    std::vector<Expr> args{
        heads,
        var(extent, t),
        var(dt, t),
        k(g.x * g.y),
        k(window_),
        k(kMaxQ),
        k(page_),
        k(static_cast<std::int64_t>(a.dram_read_total_bytes_per_cycle.value * 1000 + 0.5))};
    args.resize(3 + tk::tt_host::kQChunkArgs, k(0));
    return call(Intrinsic::tt_q_chunk, std::move(args));
  }

  // The row window's read for the chunk: q rows of W / q pages, row r at the page of row
  // first + r (the rows past the tensor's last one, in the last chunk, are not read).
  Stmt chunk_read(const Call& c, const std::string& row, const Expr& first, const Expr& end,
                  const Stmt& s, std::string& why) {
    const auto lit = [&](std::size_t n) {
      const IntImm* x = as<IntImm>(c.args[n]);
      return x ? x->value : -1;
    };
    if (c.args.size() != 10 || lit(3) != 1 || lit(5) != 1 || lit(6) != 1 || lit(7) != 1 ||
        lit(9) < std::max<std::int64_t>(q_, 1) || lit(4) != lit(9)) {
      why = "its row window is not one row of a window's pages";
      return nullptr;
    }
    window_ = lit(9);
    window_cols_ = q_ > 0 ? lit(9) / q_ : 0;
    const CircularBuffer* win = p_.find_cb(cb_of(&c));
    page_ = win ? win->page_size : 0;
    const Expr page = subst(c.args[2], row, first);
    Expr stride = coefficient(c.args[2], row); // the pages from one row to the next
    if (!stride) {
      why = "its row window's first page is not affine in the row index";
      return nullptr;
    }
    stride_ = stride;
    std::vector<Expr> args = c.args;
    args[2] = page;
    args[3] = q_ > 0 ? int_imm(q_) : var(q_name_, Type::i32());
    args[4] = cols();
    args[5] = stride;
    args[7] = end - first;
    return evaluate(call(c.fn, std::move(args), c.loc.range), s->loc.range);
  }

  // The window's pages per row of the chunk: W / q.
  Expr cols() const { return q_ > 0 ? int_imm(window_cols_) : var(cols_name_, Type::i32()); }

  std::string chunk_host(const std::string& extent, const std::string& chunks) {
    Function* h = ir::find_function(p_, FuncKind::host);
    if (!h || !p_.host_plan)
      return "it has no host function";
    std::vector<Stmt> stmts = as<Block>(h->body)->stmts;
    auto at = std::find_if(stmts.begin(), stmts.end(), [&](const Stmt& s) {
      const Decl* d = as<Decl>(s);
      return d && d->name == extent;
    });
    if (at == stmts.end())
      return "its host does not compute '" + extent + "'";
    const Expr ext = var(extent, Type::u32());
    const SourceRange loc = (*at)->loc.range;
    if (q_ > 0) {
      const Expr q = int_imm(q_, Type::u32());
      at = stmts.insert(at + 1,
                        decl(chunks, Type::u32(), (ext + int_imm(q_ - 1, Type::u32())) / q, loc));
    } else {
      // Dt (the kernel's, on the host), the rule's q and the chunks per head, before the items.
      const std::string dt = as<Var>(stride_)->name;
      const bool has_dt = std::any_of(stmts.begin(), stmts.end(), [&](const Stmt& s) {
        const Decl* d = as<Decl>(s);
        return d && d->name == dt;
      });
      if (!has_dt) {
        Expr v = retype(dt_host_, Type::u32());
        if (!v)
          return "its row's tiles per row are not a size expression";
        at = stmts.insert(at + 1, decl(dt, Type::u32(), v, loc));
      }
      std::string why;
      Expr rule = q_rule(extent, dt, Type::u32(), why);
      if (!rule)
        return why;
      const Expr q = var(q_name_, Type::u32());
      at = stmts.insert(at + 1, decl(q_name_, Type::u32(), rule, loc));
      at = stmts.insert(at + 1,
                        decl(chunks, Type::u32(), (ext + q - int_imm(1, Type::u32())) / q, loc));
    }
    bool items = false;
    for (Stmt& s : stmts)
      if (const Decl* d = as<Decl>(s); d && d->name == p_.host_plan->work_items) {
        s = decl(d->name, d->type, subst(d->value, extent, var(chunks, Type::u32())), s->loc.range);
        items = true;
      }
    if (!items)
      return "its host does not count its work items";
    h->body = block(std::move(stmts));
    return {};
  }
};

} // namespace

ir::Module chunk_rows(const ir::Module& m, Diagnostics& diags) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    const std::int64_t q = tt::options(p).q_chunk;
    if (q == 1)
      continue;
    if (q == 0) { // the rule's at run time, where the kernel has the shape; else as it is
      Program chunked = p;
      Function* k = ir::find_function(chunked, FuncKind::kernel);
      if (k && Chunk(chunked, *k, 0).run().empty())
        p = std::move(chunked);
      continue;
    }
    Function* k = ir::find_function(p, FuncKind::kernel);
    std::string why = k ? Chunk(p, *k, q).run() : "it has no kernel function";
    if (!why.empty()) {
      diags.error(p.loc.range, "kernel '" + p.name + "': option q_chunk = " + std::to_string(q) +
                                   " applies only to a kernel whose work item is a row that "
                                   "bounds a key loop reading shared windows (FlashAttention's "
                                   "`for j in 0 .. i + 1`); " +
                                   why);
      return m;
    }
  }
  return out;
}

} // namespace tk::lower
