#include "lowering/tt/chunk_keys.hpp"

#include "lowering/ir/equal.hpp"
#include "lowering/ir/substitute.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"
#include "lowering/tt/assign_cbs.hpp"
#include "lowering/tt/call_match.hpp"
#include "lowering/tt/target.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace tk::lower {

namespace {

using namespace tk::ir;
using tt::call_of;
using tt::cb_name;

// Every call under `s`, at any depth, in order.
struct Calls : Visitor {
  std::vector<const Call*> out;
  void visit_node(const Call& c) override {
    out.push_back(&c);
    Visitor::visit_node(c);
  }
};
std::vector<const Call*> calls_under(const Stmt& s) {
  Calls c;
  c.visit(s);
  return c.out;
}

// Whether `v` is read anywhere under `s` outside the reader's and writer's streams (df.*).
struct ReadOutsideStreams : Visitor {
  const std::string& v;
  int in_stream = 0;
  bool found = false;
  explicit ReadOutsideStreams(const std::string& x) : v(x) {}
  void visit_node(const Call& c) override {
    const bool stream = to_string(c.fn).substr(0, 3) == "df.";
    in_stream += stream;
    Visitor::visit_node(c);
    in_stream -= stream;
  }
  void visit_node(const Var& x) override { found = found || (x.name == v && !in_stream); }
};

bool is_pool(const Call& c, EnumConst pool) {
  if (c.fn != Intrinsic::reduce_tile)
    return false;
  const EnumImm* e = as<EnumImm>(c.args[0]);
  return e && e->value == pool;
}

bool packs_into(const Stmt& s, const std::string& cb) {
  for (const Call* c : calls_under(s))
    if (c->fn == Intrinsic::pack_tile && cb_name(c->args[1]) == cb)
      return true;
  return false;
}

// The CBs named under `s`, by any call.
std::set<std::string> cbs_under(const Stmt& s) {
  std::set<std::string> out;
  for (const Call* c : calls_under(s))
    for (const Expr& a : c->args)
      if (std::string n = cb_name(a); !n.empty())
        out.insert(n);
  return out;
}

std::int64_t literal(const Expr& e, std::int64_t otherwise = -1) {
  const IntImm* i = as<IntImm>(e);
  return i ? i->value : otherwise;
}

// A statement of the key step, by the section it belongs to.
enum class Part { k_window, v_window, score, rowmax, c, p, l, o, m };

struct Step {
  std::vector<std::pair<Part, Stmt>> stmts;
  std::string k_win, v_win, t, s, mn, m, c, p; // the CBs the sections hand each other
  Expr m_count;                                // the tiles of M the row max waits for
  Expr p_count;                                // the tiles of P the l section waits for
};

// The row max of key tile kk > 0: max(mn, rowmax(T)), reading MN where the first reads M.
struct FoldMax : Mutator {
  const Step* step = nullptr;
  bool other = false; // M touched otherwise than by a wait or a copy
  Expr mutate_node(const Call& c, const Expr& self) override {
    std::vector<Expr> args = c.args;
    if (!args.empty() && cb_name(args[0]) == step->m) {
      if (c.fn != Intrinsic::copy_tile && c.fn != Intrinsic::cb_wait_front)
        other = true;
      args[0] = cb_ref(step->mn);
      return call(c.fn, std::move(args), c.loc.range);
    }
    return self;
  }
};

// l and o of key tile kk > 0: the rescale by c taken out (its loads of c into DST, the products
// with them, and C's waits and pops), so l = l + rowsum(p) and o[d] = o[d] + p @ V[d].
struct DropRescale : Mutator {
  const std::string* c_cb = nullptr;
  bool failed = false;
  Stmt mutate_node(const Block& b, const Stmt&) override {
    std::set<std::int64_t> c_slots;
    for (const Stmt& x : b.stmts)
      if (const Call* c = call_of(x)) {
        if (c->fn == Intrinsic::copy_tile && cb_name(c->args[0]) == *c_cb)
          c_slots.insert(literal(c->args[2]));
        if (c->fn == Intrinsic::unary_bcast && cb_name(c->args[1]) == *c_cb)
          c_slots.insert(literal(c->args[3]));
      }
    std::vector<Stmt> out;
    for (const Stmt& x : b.stmts) {
      const Call* c = call_of(x);
      if (c && (c->fn == Intrinsic::copy_tile || c->fn == Intrinsic::unary_bcast ||
                c->fn == Intrinsic::cb_wait_front || c->fn == Intrinsic::cb_pop_front)) {
        const std::size_t at = c->fn == Intrinsic::unary_bcast ? 1 : 0;
        if (cb_name(c->args[at]) == *c_cb)
          continue;
      }
      if (c && c->fn == Intrinsic::mul_binary_tile) {
        const std::int64_t a = literal(c->args[0]), bb = literal(c->args[1]),
                           o = literal(c->args[2]);
        if ((c_slots.count(bb) && o == a) || (c_slots.count(a) && o == bb))
          continue; // x = x * c
      }
      if (c)
        for (std::size_t s : tt::slot_args(c->fn))
          if (c_slots.count(literal(c->args[s])))
            failed = true; // c read by anything but the rescale
      if (!c && cbs_under(x).count(*c_cb))
        failed = failed || as<For>(x) == nullptr;
      out.push_back(c ? x : mutate(x));
    }
    return block(std::move(out));
  }
};

// l of the chunk's first key tile, carried in DST over the whole chunk: after each row sum of P's
// tile i (into l's slot), the row sums of the other key tiles' tiles i + kk·n, kk in 1 .. k − 1
// (n: P's tiles a key tile, in key-tile order), so l is loaded and packed once a chunk, not once a
// key tile. The same additions in the same order (l·c + Σ_kk rowsum(p_kk), left to right), in
// DST instead of through l's fp32 CB: the round trip they no longer take is exact.
struct SumOverChunk : Mutator {
  const std::string* p_cb = nullptr;
  Expr n;
  std::int64_t k = 1;
  NameSet* names = nullptr;
  SourceRange loc;
  Stmt mutate_node(const Block& b, const Stmt&) override {
    std::vector<Stmt> out;
    for (const Stmt& x : b.stmts) {
      const Call* c = call_of(x);
      out.push_back(c ? x : mutate(x));
      if (!c || !is_pool(*c, EnumConst::pool_sum) || cb_name(c->args[2]) != *p_cb)
        continue;
      const std::string kk = names->fresh("kl");
      std::vector<Expr> args = c->args;
      args[4] = ir::add(args[4], ir::mul(var(kk, Type::i32()), n));
      out.push_back(for_loop(kk, int_imm(1), int_imm(k - 1), ForRole::reduction,
                             evaluate(call(c->fn, std::move(args), c->loc.range), loc), loc));
    }
    return block(std::move(out));
  }
};

// o's section of the chunk's first key tile, made the chunk's sum (Chunker::o_over_chunk): after
// each product of P with V's window or a streamed tile of V, the other key tiles' products into
// the same slot.
struct OverChunk : Mutator {
  std::string v_win, p, j;
  Expr n;
  std::int64_t k = 1, row = 1; // row: a key tile's pages in V's window
  NameSet* names = nullptr;
  SourceRange loc;
  bool failed = false, changed = false;

  Stmt mutate_node(const Block& b, const Stmt&) override {
    std::vector<Stmt> out;
    for (std::size_t i = 0; i < b.stmts.size(); ++i) {
      const Stmt& x = b.stmts[i];
      const Call* c = call_of(x);
      if (!c) {
        out.push_back(mutate(x));
        continue;
      }
      out.push_back(x);
      const bool product = c->fn == Intrinsic::matmul_tiles && cb_name(c->args[0]) == p;
      if (product && cb_name(c->args[1]) == v_win) {
        // Unrolled, each a call of its own: batch-sections batches the section's tiles of D
        // (a loop in a section stops it) and block-products makes each key tile's products a
        // 1 x ct matmul_block.
        for (std::int64_t kk = 1; kk < k; ++kk) {
          std::vector<Expr> a = c->args;
          a[2] = ir::add(a[2], ir::mul(int_imm(kk), n));
          a[3] = ir::add(a[3], int_imm(kk * row));
          out.push_back(evaluate(call(c->fn, std::move(a), c->loc.range), loc));
        }
        changed = true;
        continue;
      }
      // A streamed tile: df.read_tile(cb, V, page), its wait, the product, its pop.
      if (c->fn == Intrinsic::df_read_tile && i + 3 < b.stmts.size()) {
        const std::string cb = cb_name(c->args[0]);
        const Call* w = call_of(b.stmts[i + 1]);
        const Call* m = call_of(b.stmts[i + 2]);
        const Call* q = call_of(b.stmts[i + 3]);
        if (!w || !m || !q || w->fn != Intrinsic::cb_wait_front || cb_name(w->args[0]) != cb ||
            m->fn != Intrinsic::matmul_tiles || cb_name(m->args[0]) != p ||
            cb_name(m->args[1]) != cb || q->fn != Intrinsic::cb_pop_front ||
            cb_name(q->args[0]) != cb) {
          failed = true;
          continue;
        }
        const std::string kk = names->fresh("ko");
        const Expr kv = var(kk, Type::i32());
        Substitute next;
        next.by[j] = ir::add(var(j, Type::i32()), kv);
        std::vector<Expr> a = m->args;
        a[2] = ir::add(a[2], ir::mul(kv, n));
        std::vector<Stmt> each{next.mutate(x), b.stmts[i + 1],
                               evaluate(call(m->fn, std::move(a), m->loc.range), loc),
                               b.stmts[i + 3]};
        out.push_back(b.stmts[i + 1]);
        out.push_back(b.stmts[i + 2]);
        out.push_back(b.stmts[i + 3]);
        out.push_back(for_loop(kk, int_imm(1), int_imm(k - 1), ForRole::reduction,
                               block(std::move(each)), loc));
        i += 3;
        changed = true;
        continue;
      }
      if (product)
        failed = true; // a product of P with something else
    }
    return block(std::move(out));
  }
};

class Chunker {
public:
  Chunker(const Program& p, const Function& f, std::int64_t k) : k_(k), names_(p), prog_(p) {
    for (const Function& g : p.functions)
      names_.add(g);
    (void)f;
  }

  Stmt walk(const Stmt& s) {
    if (const Block* b = as<Block>(s)) {
      std::vector<Stmt> out;
      bool changed = false;
      std::optional<Pad> pad;
      for (const Stmt& x : b->stmts) {
        out.push_back(walk(x));
        changed = changed || out.back() != x;
        if (pad_) {
          pad = pad_;
          pad_.reset();
          continue;
        }
        // A key step after the chunks (the diagonal's): padded like the steps left.
        if (pad && cbs_under(x).count(pad->p)) {
          std::optional<Stmt> padded = padded_step(x, *pad);
          if (!padded)
            return s; // P used otherwise: its chunks would not start at a whole slot
          out.back() = *padded;
        }
      }
      return changed ? block(std::move(out)) : s;
    }
    if (const For* f = as<For>(s)) {
      if (f->role == ForRole::reduction)
        if (std::optional<Step> step = analyse(*f))
          return chunk(*f, *step);
      Stmt body = walk(f->body);
      return body == f->body ? s : for_loop(f->var, f->min, f->extent, f->role, body, f->loc.range);
    }
    return s;
  }

private:
  std::int64_t k_;
  NameSet names_;
  const Program& prog_;

  // The chunk's l reads P's tiles up to q·k − 1 past the front, and a CB is read where it lies in
  // L1, not wrapped past its end (the unpacker's address is the read pointer plus the index
  // times the page): a chunk must find P's front at a whole slot of q·k pages (P holds k·max_q,
  // and q divides max_q). A chunk takes a slot; a key step one at a time (the steps left after the
  // chunks, the diagonal's) uses q pages, so it pads its slot with q·(k − 1) pages pushed and
  // popped unwritten.
  struct Pad {
    std::string p;
    Expr n;                   // P's tiles a key tile
    std::string v;            // V's window, when o is summed over the chunk (o_over_chunk)
    std::int64_t v_pages = 0; // its CB's pages, which a chunk takes (0: o is not)
    std::int64_t v_slots = 1; // the key steps' windows the CB holds
  };
  std::optional<Pad> pad_;                 // set by chunk() for the block walking it
  std::int64_t v_pages_ = 0, v_slots_ = 1; // set by o_over_chunk (Pad)

  std::vector<Stmt> pad_stmts(const Pad& pad, SourceRange loc) const {
    const Expr n = ir::mul(pad.n, int_imm(k_ - 1));
    std::vector<Stmt> out;
    for (Intrinsic fn : {Intrinsic::cb_reserve_back, Intrinsic::cb_push_back,
                         Intrinsic::cb_wait_front, Intrinsic::cb_pop_front})
      out.push_back(evaluate(call(fn, {cb_ref(pad.p), n}, loc), loc));
    return out;
  }

  // V's window likewise, but once a loop of key steps, not once a step: a chunk takes all of the
  // window CB's pages (o_over_chunk), a key step one window, so after a loop of n steps the
  // window is padded by windows of no pages read (the writer reserves and pushes them, the compute
  // waits for and pops them) until the steps and the pad fill whole CBs: with the window half the
  // CB, `for pv in 0 .. n % 2`. The steps themselves keep the window double-buffered.
  std::optional<Stmt> v_pad(const For& f, const Pad& pad) {
    const Call* read = nullptr;
    for (const Stmt& y : as<Block>(f.body)->stmts)
      if (const Call* c = call_of(y);
          c && c->fn == Intrinsic::df_read_block && cb_name(c->args[0]) == pad.v)
        read = c;
    if (!read || literal(read->args[9]) * pad.v_slots != pad.v_pages)
      return std::nullopt;
    const std::int64_t window = literal(read->args[9]);
    Substitute at; // any page of V: none is read
    at.by[f.var] = f.min;
    std::vector<Expr> a = read->args;
    for (Expr& e : a)
      e = at.mutate(e);
    a[8] = int_imm(0);
    const SourceRange loc = f.loc.range;
    std::vector<Stmt> each{
        evaluate(call(Intrinsic::df_read_block, std::move(a), loc), loc),
        evaluate(call(Intrinsic::cb_wait_front, {cb_ref(pad.v), int_imm(window)}, loc), loc),
        evaluate(call(Intrinsic::cb_pop_front, {cb_ref(pad.v), int_imm(window)}, loc), loc)};
    const Expr m = int_imm(pad.v_slots);
    const Expr left = binary(BinaryOp::mod, f.extent, m);
    const Expr count =
        pad.v_slots == 2 ? left : binary(BinaryOp::mod, binary(BinaryOp::sub, m, left), m);
    return for_loop(names_.fresh("pv"), int_imm(0), count, ForRole::serial, block(std::move(each)),
                    loc);
  }

  // The key step loop `x` with its slot padded, or nothing when it is not one: a loop whose body
  // waits for P's q tiles at its top level.
  std::optional<Stmt> padded_step(const Stmt& x, const Pad& pad) {
    const For* f = as<For>(x);
    const Block* b = f ? as<Block>(f->body) : nullptr;
    if (!b)
      return std::nullopt;
    bool waits = false;
    for (const Stmt& y : b->stmts)
      if (const Call* c = call_of(y); c && c->fn == Intrinsic::cb_wait_front &&
                                      cb_name(c->args[0]) == pad.p && ir::equal(c->args[1], pad.n))
        waits = true;
    if (!waits)
      return std::nullopt;
    std::vector<Stmt> body = b->stmts;
    for (Stmt& y : pad_stmts(pad, f->loc.range))
      body.push_back(std::move(y));
    Stmt padded =
        for_loop(f->var, f->min, f->extent, f->role, block(std::move(body)), f->loc.range);
    if (pad.v_pages == 0)
      return padded;
    std::optional<Stmt> v = v_pad(*f, pad);
    if (!v)
      return std::nullopt;
    return block({padded, *v});
  }

  // The sections of the key step `f`, or nothing when its body is not the recurrence.
  std::optional<Step> analyse(const For& f) const {
    const Block* body = as<Block>(f.body);
    if (!body)
      return std::nullopt;
    Step st;
    // The CBs, from the calls that define them: T is reduced by MAX into MN, P by SUM; the o
    // section's products read P and the V window; its broadcast reads C; the scores are products
    // with the K window (matmul_tiles.bt).
    std::set<std::string> windows; // the CBs a block read fills in the body
    for (const Call* c : calls_under(f.body)) {
      if (c->fn == Intrinsic::df_read_block)
        windows.insert(cb_name(c->args[0]));
      if (c->fn == Intrinsic::df_tril_tile)
        return std::nullopt; // the masked steps stay one key tile at a time
    }
    for (const Call* c : calls_under(f.body)) {
      if (is_pool(*c, EnumConst::pool_max))
        st.t = cb_name(c->args[2]);
      if (is_pool(*c, EnumConst::pool_sum))
        st.p = cb_name(c->args[2]);
      if (c->fn == Intrinsic::matmul_tiles_bt && windows.count(cb_name(c->args[1])))
        st.k_win = cb_name(c->args[1]);
      if (c->fn == Intrinsic::matmul_tiles && windows.count(cb_name(c->args[1])))
        st.v_win = cb_name(c->args[1]);
    }
    // MN is what the row max packs; C what the o section broadcasts.
    for (const Stmt& x : body->stmts) {
      const std::vector<const Call*> calls = calls_under(x);
      const bool max = std::any_of(calls.begin(), calls.end(),
                                   [](const Call* c) { return is_pool(*c, EnumConst::pool_max); });
      const bool o = std::any_of(calls.begin(), calls.end(), [&](const Call* c) {
        return c->fn == Intrinsic::matmul_tiles && cb_name(c->args[0]) == st.p;
      });
      for (const Call* c : calls) {
        if (max && c->fn == Intrinsic::pack_tile)
          st.mn = cb_name(c->args[1]);
        if (o && c->fn == Intrinsic::unary_bcast)
          st.c = cb_name(c->args[1]);
      }
    }
    if (st.t.empty() || st.p.empty() || st.k_win.empty() || st.v_win.empty() || st.mn.empty() ||
        st.c.empty() || st.k_win == st.v_win)
      return std::nullopt;
    // Each statement's section.
    Part at = Part::k_window;
    std::vector<Stmt> waits; // bare waits, given to the section after them
    auto add = [&](Part p, const Stmt& x) {
      for (const Stmt& w : waits)
        st.stmts.push_back({p, w});
      waits.clear();
      st.stmts.push_back({p, x});
    };
    for (const Stmt& x : body->stmts) {
      const Call* c = call_of(x);
      const std::set<std::string> cbs = cbs_under(x);
      std::vector<const Call*> calls = calls_under(x);
      auto has = [&](auto pred) { return std::any_of(calls.begin(), calls.end(), pred); };
      if (as<Decl>(x))
        return std::nullopt;
      if (c &&
          (c->fn == Intrinsic::df_read_block || c->fn == Intrinsic::cb_wait_front ||
           c->fn == Intrinsic::cb_pop_front) &&
          (cb_name(c->args[0]) == st.k_win || cb_name(c->args[0]) == st.v_win)) {
        st.stmts.push_back({cb_name(c->args[0]) == st.k_win ? Part::k_window : Part::v_window, x});
        continue;
      }
      if (c && c->fn == Intrinsic::cb_wait_front) {
        waits.push_back(x);
        continue;
      }
      Part p;
      if (packs_into(x, st.t))
        p = Part::score;
      else if (has([](const Call* y) { return is_pool(*y, EnumConst::pool_max); }))
        p = Part::rowmax;
      else if (packs_into(x, st.p))
        p = Part::p;
      else if (has([](const Call* y) { return is_pool(*y, EnumConst::pool_sum); }))
        p = Part::l;
      else if (has([&](const Call* y) {
                 return y->fn == Intrinsic::matmul_tiles && cb_name(y->args[0]) == st.p;
               }))
        p = Part::o;
      else if (at == Part::rowmax || at == Part::c)
        p = Part::c;
      else if (at == Part::o || at == Part::m)
        p = Part::m;
      else
        return std::nullopt;
      if (p < at)
        return std::nullopt; // the sections out of order
      at = p;
      add(p, x);
    }
    if (!waits.empty() || at != Part::m)
      return std::nullopt;
    // The CBs each section may touch; M is the one the row max reads besides T.
    std::map<std::string, std::set<Part>> touched;
    for (auto& [p, x] : st.stmts)
      for (const std::string& cb : cbs_under(x))
        touched[cb].insert(p);
    for (auto& [p, x] : st.stmts)
      if (p == Part::score)
        for (const Call* c : calls_under(x))
          if (c->fn == Intrinsic::pack_tile && cb_name(c->args[1]) != st.t)
            st.s = cb_name(c->args[1]);
    for (auto& [p, x] : st.stmts)
      if (p == Part::rowmax) {
        for (const Call* c : calls_under(x)) {
          if (c->fn == Intrinsic::copy_tile)
            st.m = cb_name(c->args[0]);
          else if (c->fn == Intrinsic::cb_wait_front && cb_name(c->args[0]) != st.t)
            st.m_count = c->args[1];
        }
      }
    for (auto& [p, x] : st.stmts)
      if (const Call* c = call_of(x);
          p == Part::l && c && c->fn == Intrinsic::cb_wait_front && cb_name(c->args[0]) == st.p)
        st.p_count = c->args[1];
    if (st.s.empty() || st.m.empty() || !st.m_count)
      return std::nullopt;
    auto only = [&](const std::string& cb, std::set<Part> allowed) {
      for (Part p : touched[cb])
        if (!allowed.count(p))
          return false;
      return true;
    };
    if (!only(st.t, {Part::score, Part::rowmax}) || !only(st.s, {Part::score, Part::p}) ||
        !only(st.p, {Part::p, Part::l, Part::o}) || !only(st.c, {Part::c, Part::l, Part::o}) ||
        !only(st.mn, {Part::rowmax, Part::c, Part::p, Part::m}) ||
        !only(st.k_win, {Part::k_window, Part::score}) ||
        !only(st.v_win, {Part::v_window, Part::o}))
      return std::nullopt;
    // The key index only in the streams (the reads of K and V), nothing else per key tile.
    ReadOutsideStreams r(f.var);
    r.visit(f.body);
    if (r.found)
      return std::nullopt;
    return st;
  }

  std::vector<Stmt> part(const Step& st, std::initializer_list<Part> ps, const std::string& j,
                         const Expr& key) const {
    Substitute s;
    s.by[j] = key;
    std::vector<Stmt> out;
    for (auto& [p, x] : st.stmts)
      if (std::find(ps.begin(), ps.end(), p) != ps.end())
        out.push_back(s.mutate(x));
    return out;
  }

  // The k window's and the scores' statements, the window's pop moved after the scores.
  std::vector<Stmt> scores(const Step& st, const std::string& j, const Expr& key) const {
    std::vector<Stmt> out, pops;
    for (const Stmt& x : part(st, {Part::k_window, Part::score}, j, key)) {
      const Call* c = call_of(x);
      (c && c->fn == Intrinsic::cb_pop_front ? pops : out).push_back(x);
    }
    out.insert(out.end(), pops.begin(), pops.end());
    return out;
  }

  // Key tile kk's l and o with the V window around o; kk > 0 without the rescale. l is the
  // chunk's sum, in the first key tile's section (SumOverChunk): its wait for P covers the chunk's
  // k key tiles; the others keep only their wait for P, which o reads.
  std::optional<std::vector<Stmt>> l_and_o(const Step& st, const std::string& j, const Expr& key,
                                           bool first, SourceRange loc) {
    std::vector<Stmt> out;
    for (const Stmt& x : part(st, {Part::l}, j, key)) {
      const Call* c = call_of(x);
      const bool p_wait = c && c->fn == Intrinsic::cb_wait_front && cb_name(c->args[0]) == st.p;
      if (!first) {
        if (p_wait)
          out.push_back(x);
        continue;
      }
      if (p_wait) {
        out.push_back(evaluate(call(Intrinsic::cb_wait_front,
                                    {c->args[0], ir::mul(c->args[1], int_imm(k_))}, c->loc.range),
                               loc));
        continue;
      }
      out.push_back(x);
    }
    if (first) {
      if (!st.p_count)
        return std::nullopt;
      SumOverChunk sum;
      sum.p_cb = &st.p;
      sum.n = st.p_count;
      sum.k = k_;
      sum.names = &names_;
      sum.loc = loc;
      out = as<Block>(sum.mutate(block(std::move(out))))->stmts;
    }
    std::vector<Stmt> v = part(st, {Part::v_window}, j, key), pops;
    for (const Stmt& x : v) {
      const Call* c = call_of(x);
      (c && c->fn == Intrinsic::cb_pop_front ? pops : out).push_back(x);
    }
    for (const Stmt& x : part(st, {Part::o}, j, key))
      out.push_back(x);
    out.insert(out.end(), pops.begin(), pops.end());
    if (first)
      return out;
    DropRescale d;
    d.c_cb = &st.c;
    Stmt b = d.mutate(block(out));
    if (d.failed)
      return std::nullopt;
    return as<Block>(b)->stmts;
  }

  // o = o·c + Σ_kk p_kk @ V_kk for the whole chunk, each tile of o loaded and packed once: V's
  // window holds the chunk's k key tiles' first v_kept = min(kept, W / k) tiles of D (row kk at
  // kk·v_kept, one read of k rows), and each product of the first key tile's o section is
  // followed by the other key tiles' into the same DST slot (P's tile i + kk·q against V's window
  // tile d + kk·v_kept; a streamed tile of V read, waited for, multiplied and popped per key
  // tile). Then the other key tiles' P is popped. Nothing when o's section is not of that form.
  std::optional<std::vector<Stmt>> o_over_chunk(const Step& st, const std::string& j,
                                                const Expr& first, SourceRange loc) {
    std::vector<Stmt> v = part(st, {Part::v_window}, j, var(j, Type::i32()));
    std::vector<Stmt> o = part(st, {Part::o}, j, var(j, Type::i32()));
    const Call* read = nullptr;
    for (const Stmt& x : v)
      if (const Call* c = call_of(x); c && c->fn == Intrinsic::df_read_block)
        read = c;
    if (!read || literal(read->args[3]) != 1 || literal(read->args[7]) != 1 || !st.p_count)
      return std::nullopt;
    const std::int64_t window = literal(read->args[9]);
    const Var* kept = as<Var>(read->args[8]);
    const CircularBuffer* vcb = prog_.find_cb(cb_name(read->args[0]));
    // The chunk's V takes all of the window CB's pages (the reader fills a key tile's row at a
    // time, so it still runs ahead: the next chunk's rows go in as this chunk's are popped, while
    // the compute works on its scores), a key tile's row each: at a window of 32 double-buffered,
    // 8 pages a row at k = 8, all of D up to 256.
    const std::int64_t total = vcb ? vcb->depth : window;
    if (window < 1 || total < window || total % k_ != 0 || total % window != 0 || !kept)
      return std::nullopt;
    const std::int64_t row = total / k_; // a key tile's pages in the window
    const std::string vk = names_.fresh("v_kept");
    const Expr v_kept = var(vk, Type::i32());
    std::vector<Stmt> out;
    out.push_back(decl(vk, Type::i32(), binary(BinaryOp::min, read->args[8], int_imm(row)), loc));
    for (const Stmt& x : v) {
      const Call* c = call_of(x);
      if (c && c->fn == Intrinsic::cb_pop_front)
        continue;
      if (c && c->fn == Intrinsic::cb_wait_front) {
        out.push_back(evaluate(call(c->fn, {c->args[0], int_imm(total)}, c->loc.range), loc));
        continue;
      }
      if (c == read) {
        // One read per key tile, each its own reservation of `row` pages, barrier and push: the
        // reader's requests go out a key tile at a time (as before the chunk), not as one burst
        // of the chunk's k rows, and the pages land in the window key tile by key tile.
        const std::string kv = names_.fresh(j + "v");
        Substitute next;
        next.by[j] = ir::add(var(j, Type::i32()), var(kv, Type::i32()));
        std::vector<Expr> a = read->args;
        a[2] = next.mutate(a[2]);
        a[4] = int_imm(row);
        a[8] = v_kept;
        a[9] = int_imm(row);
        out.push_back(for_loop(kv, int_imm(0), int_imm(k_), ForRole::serial,
                               evaluate(call(read->fn, std::move(a), read->loc.range), loc), loc));
        continue;
      }
      out.push_back(x);
    }
    Substitute narrow;
    narrow.by[kept->name] = v_kept;
    OverChunk over;
    over.v_win = cb_name(read->args[0]);
    over.p = st.p;
    over.j = j;
    over.n = st.p_count;
    over.row = row;
    over.k = k_;
    over.names = &names_;
    over.loc = loc;
    Stmt ob = over.mutate(narrow.mutate(block(std::move(o))));
    if (over.failed || !over.changed)
      return std::nullopt;
    for (const Stmt& x : as<Block>(ob)->stmts)
      out.push_back(x);
    out.push_back(evaluate(
        call(Intrinsic::cb_pop_front, {cb_ref(st.p), ir::mul(st.p_count, int_imm(k_ - 1))}), loc));
    for (const Stmt& x : v)
      if (const Call* c = call_of(x); c && c->fn == Intrinsic::cb_pop_front)
        out.push_back(evaluate(call(c->fn, {c->args[0], int_imm(total)}, c->loc.range), loc));
    v_pages_ = total;
    v_slots_ = total / window;
    Substitute at;
    at.by[j] = first;
    return as<Block>(at.mutate(block(std::move(out))))->stmts;
  }

  Stmt chunk(const For& f, const Step& st) {
    const std::int64_t k = k_;
    v_pages_ = 0;
    v_slots_ = 1;
    const std::string jc = names_.fresh(f.var + "c"), kk = names_.fresh(f.var + "k");
    const Expr first = ir::add(f.min, ir::mul(var(jc, Type::i32()), int_imm(k)));
    const Expr key = ir::add(first, var(kk, Type::i32()));
    std::vector<Stmt> body = scores(st, f.var, first);
    for (const Stmt& x : part(st, {Part::rowmax}, f.var, first))
      body.push_back(x);
    // Key tiles 1 .. k - 1: scores, and the row max folded into MN, the old MN popped after.
    std::vector<Stmt> more = scores(st, f.var, key);
    FoldMax fold;
    fold.step = &st;
    for (const Stmt& x : part(st, {Part::rowmax}, f.var, key))
      more.push_back(fold.mutate(x));
    if (fold.other)
      return for_loop(f.var, f.min, f.extent, f.role, f.body, f.loc.range);
    // The old MN: a page at a time when its count is the rule's q (the CB protocol's counts are
    // literals to assign-cbs and verify-kernels).
    const Stmt pop_mn =
        as<IntImm>(st.m_count)
            ? evaluate(call(Intrinsic::cb_pop_front, {cb_ref(st.mn), st.m_count}), f.loc.range)
            : for_loop(
                  names_.fresh("r"), int_imm(0), st.m_count, ForRole::serial,
                  evaluate(call(Intrinsic::cb_pop_front, {cb_ref(st.mn), int_imm(1)}), f.loc.range),
                  f.loc.range);
    more.push_back(pop_mn);
    body.push_back(for_loop(kk, int_imm(1), int_imm(k - 1), ForRole::reduction,
                            block(std::move(more)), f.loc.range));
    for (const Stmt& x : part(st, {Part::c}, f.var, first))
      body.push_back(x);
    // p of each key tile against the chunk's max: S's tiles, q a key tile, in order.
    const std::string kp = names_.fresh(f.var + "k");
    body.push_back(for_loop(kp, int_imm(0), int_imm(k), ForRole::reduction,
                            block(part(st, {Part::p}, f.var, first)), f.loc.range));
    std::optional<std::vector<Stmt>> lo0 = l_and_o(st, f.var, first, true, f.loc.range);
    std::optional<std::vector<Stmt>> lo = l_and_o(st, f.var, key, false, f.loc.range);
    if (!lo0 || !lo)
      return for_loop(f.var, f.min, f.extent, f.role, f.body, f.loc.range);
    if (std::optional<std::vector<Stmt>> o = o_over_chunk(st, f.var, first, f.loc.range)) {
      // l as in lo0 (its statements before the V window's), then o over the chunk.
      for (const Stmt& x : *lo0) {
        const Call* c = call_of(x);
        if (c && (c->fn == Intrinsic::df_read_block ||
                  (c->fn == Intrinsic::cb_wait_front && cb_name(c->args[0]) == st.v_win)))
          break;
        body.push_back(x);
      }
      body.insert(body.end(), o->begin(), o->end());
    } else {
      body.insert(body.end(), lo0->begin(), lo0->end());
      const std::string ko = names_.fresh(f.var + "k");
      Substitute rename;
      rename.by[kk] = var(ko, Type::i32());
      body.push_back(for_loop(ko, int_imm(1), int_imm(k - 1), ForRole::reduction,
                              rename.mutate(block(std::move(*lo))), f.loc.range));
    }
    for (const Stmt& x : part(st, {Part::m}, f.var, first))
      body.push_back(x);
    const Expr chunks = binary(BinaryOp::div, f.extent, int_imm(k));
    std::vector<Stmt> loops;
    loops.push_back(for_loop(jc, int_imm(0), chunks, f.role, block(std::move(body)), f.loc.range));
    const Pad pad{st.p, st.p_count, st.v_win, v_pages_, v_slots_};
    std::optional<Stmt> rest = padded_step(
        for_loop(f.var, ir::add(f.min, ir::mul(chunks, int_imm(k))),
                 binary(BinaryOp::mod, f.extent, int_imm(k)), f.role, f.body, f.loc.range),
        pad);
    if (!rest)
      return for_loop(f.var, f.min, f.extent, f.role, f.body, f.loc.range);
    loops.push_back(*rest);
    pad_ = pad;
    return block(std::move(loops));
  }
};

} // namespace

namespace tt {
std::int64_t keys_per_step(const For& f) {
  const Binary* b = as<Binary>(f.extent);
  if (!b || b->op != BinaryOp::div || literal(f.min) != 0)
    return 1;
  return std::max<std::int64_t>(literal(b->b, 1), 1);
}

} // namespace tt

namespace {

// The chunks tried, largest first: by the timing model a key tile's step costs less the more key
// tiles share c, its exp, m = mn and the rescale of l and o (docs/lowering.md, "Key chunks": at
// 8x4096x128, 2908.5 / 2673.0 / 2615.6 us at k = 2 / 4 / 8), so the largest whose CBs fit.
// Not 16: at the rule's 8 rows S and P need 1,906,688 bytes of L1, and where the rows are
// fewer (q <= 4, where it fits) the key tiles left after the chunks, run as single steps, pay
// the per-step work as often as at k = 8 or more (docs/lowering.md, "Why k stops at 8").
constexpr std::int64_t kKeyChunks[] = {8, 4, 2};

// Whether the CBs of `p` fit in L1: assign-cbs's own check, the stage the chain runs next.
bool fits(const ir::Module& m, const Program& p) {
  ir::Module one;
  one.attrs = m.attrs;
  one.programs = {p};
  Diagnostics scratch;
  (void)assign_cbs(one, scratch);
  return !scratch.has_errors();
}

} // namespace

ir::Module chunk_keys(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs)
    for (std::int64_t k : kKeyChunks) {
      Program c = p;
      bool changed = false;
      for (Function& f : c.functions)
        if (f.kind == FuncKind::kernel) {
          Chunker ch(c, f, k);
          Stmt body = ch.walk(f.body);
          changed = changed || body != f.body;
          f.body = body;
        }
      if (!changed)
        break; // no key loop to chunk
      if (fits(m, c)) {
        p = std::move(c);
        break;
      }
    }
  return out;
}

} // namespace tk::lower
