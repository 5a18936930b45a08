#include "lowering/tt/batch_rows.hpp"

#include "lowering/ir/substitute.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"
#include "lowering/tt/call_match.hpp"
#include "lowering/tt/cb_tile_args.hpp"
#include "lowering/tt/fission_rows.hpp"
#include "lowering/tt/target.hpp"

#include <map>
#include <set>

namespace tk::lower {

namespace {

using namespace tk::ir;
using tt::call_of;
using tt::cb_name;
using tt::slot_args;

bool same_count(const Expr& a, const Expr& b) {
  const Var* x = as<Var>(a);
  const Var* y = as<Var>(b);
  const IntImm* i = as<IntImm>(a);
  const IntImm* j = as<IntImm>(b);
  return (x && y && x->name == y->name) || (i && j && i->value == j->value);
}

void calls_in(const Stmt& s, std::vector<const Call*>& out, bool& other) {
  if (const Block* b = as<Block>(s)) {
    for (const Stmt& x : b->stmts)
      calls_in(x, out, other);
  } else if (const For* f = as<For>(s)) {
    calls_in(f->body, out, other);
  } else if (const Call* c = call_of(s)) {
    out.push_back(c);
  } else if (!as<Decl>(s)) {
    other = true; // a branch, an assignment, a store
  }
}

// Row k of a batch: its slots after the rows before it, its front reads k tiles on.
struct Remap : Mutator {
  const std::map<std::int64_t, std::int64_t>* ordinal = nullptr;
  const std::set<std::string>* front = nullptr;
  std::int64_t k = 0;
  Expr mutate_node(const Call& c, const Expr& self) override {
    std::vector<Expr> args = c.args;
    for (std::size_t a : slot_args(c.fn))
      args[a] = int_imm(k * static_cast<std::int64_t>(ordinal->size()) +
                        ordinal->at(as<IntImm>(args[a])->value));
    if (c.fn != Intrinsic::cb_wait_front && c.fn != Intrinsic::cb_pop_front)
      for (auto [at, index] : tt::cb_tile_args(c.fn))
        if (at < args.size() && front->count(cb_name(args[at])))
          args[index] = int_imm(as<IntImm>(args[index])->value + k);
    (void)self;
    return call(c.fn, std::move(args), c.loc.range);
  }
};

class Batcher {
public:
  Batcher(const Program& p, const Function& k, std::int64_t capacity)
      : rows_(p, k), capacity_(capacity), names_(p) {
    for (const Function& f : p.functions)
      names_.add(f);
  }

  Stmt walk(const Stmt& s, bool in_key_loop) {
    if (const Block* b = as<Block>(s)) {
      std::vector<Stmt> out;
      bool changed = false;
      std::vector<const Call*> waits; // the waits right before the statement
      for (const Stmt& x : b->stmts) {
        Stmt y = nullptr;
        if (const For* f = as<For>(x); f && in_key_loop && rows_.is_rows(*f)) {
          std::set<std::string> waited;
          for (const Call* w : waits)
            if (same_count(w->args[1], f->extent))
              waited.insert(cb_name(w->args[0]));
          y = batch(*f, waited);
        }
        const Call* c = call_of(x);
        if (c && c->fn == Intrinsic::cb_wait_front)
          waits.push_back(c);
        else
          waits.clear();
        out.push_back(y ? y : walk(x, in_key_loop));
        changed = changed || out.back() != x;
      }
      return changed ? block(std::move(out)) : s;
    }
    if (const For* f = as<For>(s)) {
      Stmt body = walk(f->body, f->role == ForRole::reduction);
      return body == f->body ? s : for_loop(f->var, f->min, f->extent, f->role, body, f->loc.range);
    }
    return s;
  }

private:
  tt::ChunkRowLoops rows_;
  std::int64_t capacity_;
  NameSet names_;

  struct Body {
    std::vector<Stmt> stmts;                      // the lets substituted away
    std::map<std::int64_t, std::int64_t> ordinal; // slot -> its place among the row's slots
    std::set<std::string> front;                  // CBs read at the front and popped in the body
    std::set<std::size_t> once;    // statements run once per batch (front waits, pops)
    std::set<std::size_t> dropped; // a row's wait for its own new state tile after its pack
    std::map<std::size_t, std::vector<std::string>> wait_before; // first reads without a wait
  };

  std::optional<Body> analyse(const For& f, const std::set<std::string>& waited) const {
    Body body;
    Substitute lets;
    for (const Stmt& x : as<Block>(f.body)->stmts) {
      if (const Decl* d = as<Decl>(x)) {
        lets.by[d->name] = lets.mutate(d->value);
        continue;
      }
      body.stmts.push_back(lets.mutate(x));
    }
    // One section: DST math, then packs; the reader's streams only inside the body's loops.
    bool packed = false, math = false;
    std::set<std::int64_t> slots;
    // Per CB: the top-level statements that pop it, read it, wait for it, pack it; the loops
    // that name it.
    std::map<std::string, std::vector<std::size_t>> pops, reads, waits, packs, nested, nested_pops;
    for (std::size_t t = 0; t < body.stmts.size(); ++t) {
      const Stmt& x = body.stmts[t];
      std::vector<const Call*> calls;
      bool other = false;
      calls_in(x, calls, other);
      if (other)
        return std::nullopt;
      const bool top = call_of(x) != nullptr;
      for (const Call* c : calls) {
        if (std::string_view(to_string(c->fn)).substr(0, 3) == "df." && top)
          return std::nullopt;
        if (c->fn == Intrinsic::pack_tile) {
          if (!top)
            return std::nullopt;
          packed = true;
        } else if (tt::writes_dst(c->fn)) {
          if (packed)
            return std::nullopt;
          math = true;
        }
        for (std::size_t a : slot_args(c->fn)) {
          const IntImm* s = as<IntImm>(c->args[a]);
          if (!s)
            return std::nullopt;
          slots.insert(s->value);
        }
        for (std::size_t a = 0; a < c->args.size(); ++a) {
          const std::string cb = cb_name(c->args[a]);
          if (cb.empty())
            continue;
          if (!top) {
            nested[cb].push_back(t);
            if (c->fn == Intrinsic::cb_pop_front)
              nested_pops[cb].push_back(t);
          } else if (c->fn == Intrinsic::cb_pop_front)
            pops[cb].push_back(t);
          else if (c->fn == Intrinsic::cb_wait_front)
            waits[cb].push_back(t);
          else if (c->fn == Intrinsic::pack_tile)
            packs[cb].push_back(t);
          else
            reads[cb].push_back(t);
        }
      }
    }
    if (!packed || !math || slots.empty())
      return std::nullopt;
    for (std::int64_t s : slots)
      body.ordinal.emplace(s, static_cast<std::int64_t>(body.ordinal.size()));
    // A CB a loop of the body pops is that loop's alone (its rows' streams, each row's in turn).
    for (const auto& [cb, at] : nested_pops) {
      std::set<std::size_t> where(nested[cb].begin(), nested[cb].end());
      if (where.size() > 1 || pops.count(cb) || waits.count(cb) || reads.count(cb) ||
          packs.count(cb))
        return std::nullopt;
    }
    for (const auto& [cb, at] : pops) {
      const Call* pop = call_of(body.stmts[at.front()]);
      const IntImm* n = as<IntImm>(pop->args[1]);
      if (at.size() != 1 || !n || n->value != 1 || nested.count(cb))
        return std::nullopt;
      const std::size_t p = at.front();
      // Every read of it before its pop, at a literal index the SDK signature names.
      for (std::size_t t : reads[cb]) {
        if (t > p)
          return std::nullopt;
        const Call* c = call_of(body.stmts[t]);
        bool known = false;
        for (auto [a, index] : tt::cb_tile_args(c->fn))
          if (a < c->args.size() && cb_name(c->args[a]) == cb) {
            if (!as<IntImm>(c->args[index]))
              return std::nullopt;
            known = true;
          }
        if (!known)
          return std::nullopt;
      }
      body.front.insert(cb);
      body.once.insert(p);
      bool waited_in_body = false;
      for (std::size_t w : waits[cb])
        if (w < p) {
          body.once.insert(w);
          waited_in_body = waited_in_body || reads[cb].empty() || w < reads[cb].front();
        }
      if (!waited_in_body && !waited.count(cb) && !reads[cb].empty())
        body.wait_before[reads[cb].front()].push_back(cb);
      // The rows' state the body pops and packs again (l, m): a row's wait for its own new tile
      // after its pack, read by nothing after it in the body, is left out of the batch. It
      // guards nothing: what reads the tiles next waits for them itself (this loop's next batch
      // before its reads, fission-rows' wait for all q rows before the next step's pieces, the
      // rows' own loop after the key loops), and after a batch popped all its rows' old tiles
      // it would only stall the math thread until the packer has packed the batch.
      if (packs.count(cb))
        for (std::size_t w : waits[cb])
          if (w > p && w > packs[cb].back() &&
              std::all_of(reads[cb].begin(), reads[cb].end(), [&](std::size_t r) { return r < w; }))
            body.dropped.insert(w);
    }
    return body;
  }

  Stmt batch_body(const For& f, const Body& body, std::int64_t size, const Expr& first) const {
    std::vector<Stmt> out;
    for (std::size_t t = 0; t < body.stmts.size(); ++t) {
      if (auto w = body.wait_before.find(t); w != body.wait_before.end())
        for (const std::string& cb : w->second)
          out.push_back(
              evaluate(call(Intrinsic::cb_wait_front, {cb_ref(cb), int_imm(size)}), f.loc.range));
      const Stmt& x = body.stmts[t];
      if (body.dropped.count(t))
        continue;
      if (body.once.count(t)) { // a wait for, or a pop of, the batch's tiles at the front
        const Call* c = call_of(x);
        const std::int64_t n = as<IntImm>(c->args[1])->value;
        out.push_back(
            evaluate(call(c->fn, {c->args[0], int_imm(n * size)}, c->loc.range), x->loc.range));
        continue;
      }
      for (std::int64_t k = 0; k < size; ++k) {
        Substitute row;
        row.by[f.var] = ir::add(first, int_imm(k));
        Remap remap;
        remap.ordinal = &body.ordinal;
        remap.front = &body.front;
        remap.k = k;
        out.push_back(remap.mutate(row.mutate(x)));
      }
    }
    return block(std::move(out));
  }

  Stmt batch(const For& f, const std::set<std::string>& waited) {
    std::optional<Body> body = analyse(f, waited);
    if (!body)
      return nullptr;
    const std::int64_t B = capacity_ / static_cast<std::int64_t>(body->ordinal.size());
    if (B < 2)
      return nullptr;
    std::vector<std::int64_t> sizes = {B};
    for (std::int64_t b = 2; b < B; b *= 2)
      sizes.insert(sizes.begin() + 1, b);
    std::vector<Stmt> loops;
    Expr left = f.extent; // the rows not yet in a batch
    for (std::int64_t size : sizes) {
      const std::string rb = names_.fresh(f.var + "b");
      const Expr start = left == f.extent ? f.min : ir::add(f.min, f.extent - left);
      const Expr first = ir::add(start, ir::mul(var(rb, Type::i32()), int_imm(size)));
      loops.push_back(for_loop(rb, int_imm(0), binary(BinaryOp::div, left, int_imm(size)), f.role,
                               batch_body(f, *body, size, first), f.loc.range));
      left = binary(BinaryOp::mod, left, int_imm(size));
    }
    loops.push_back(
        for_loop(f.var, ir::add(f.min, f.extent - left), left, f.role, f.body, f.loc.range));
    return block(std::move(loops));
  }
};

} // namespace

ir::Module batch_rows(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs)
    for (Function& f : p.functions)
      if (f.kind == FuncKind::kernel) {
        Batcher b(p, f, tt::dst_capacity(p, tt::dst_fp32(p)));
        f.body = b.walk(f.body, false);
      }
  return out;
}

} // namespace tk::lower
