#include "lowering/tt/batch_sections.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/tt/cb_tile_args.hpp"
#include "lowering/tt/target.hpp"

#include <map>
#include <set>

namespace tk::lower {

namespace {

using namespace tk::ir;

const Call* call_of(const Stmt& s) {
  const Evaluate* e = as<Evaluate>(s);
  return e ? as<Call>(e->call) : nullptr;
}

std::string cb_name(const Expr& e) {
  const Ref* r = as<Ref>(e);
  return r && r->type.kind == Type::Kind::cb ? r->name : std::string();
}

// The DST slots a call names: its `slot` arguments, or pack_tile's first argument (the slot it
// packs from).
std::vector<std::size_t> slot_args(Intrinsic fn) {
  if (fn == Intrinsic::pack_tile)
    return {0};
  return tt::dst_slot_args(fn);
}

// A loop body this stage batches, analysed.
struct Body {
  std::vector<const Call*> calls;
  std::set<std::string> rotated;          // row CBs the body waits for, reads at 0 and pops
  std::vector<bool> shared;               // per statement: runs once per batch
  std::map<std::int64_t, std::int64_t> slot_of_shared;  // shared slot -> its slot in the batch
  std::map<std::int64_t, std::int64_t> slot_of_per_tile; // per-tile slot -> its ordinal
};

class Batcher {
public:
  Batcher(const Program& p, std::int64_t capacity) : capacity_(capacity), names_(p) {
    for (const Function& f : p.functions)
      names_.add(f);
    for (const RowOfTiles& r : p.rows)
      rows_.insert("cb_" + r.name);
  }

  Stmt walk(const Stmt& s) {
    if (const Block* b = as<Block>(s)) {
      std::vector<Stmt> out;
      bool changed = false;
      for (const Stmt& x : b->stmts) {
        out.push_back(walk(x));
        changed = changed || out.back() != x;
      }
      return changed ? block(std::move(out)) : s;
    }
    if (const For* f = as<For>(s)) {
      if (Stmt batched = batch(*f))
        return batched;
      Stmt body = walk(f->body);
      return body == f->body ? s
                             : for_loop(f->var, f->min, f->extent, f->role, body, f->loc.range);
    }
    if (const IfThenElse* i = as<IfThenElse>(s)) {
      Stmt t = walk(i->then_case);
      Stmt e = i->else_case ? walk(i->else_case) : nullptr;
      return t == i->then_case && e == i->else_case ? s
                                                    : if_then_else(i->cond, t, e, s->loc.range);
    }
    return s;
  }

private:
  std::int64_t capacity_;
  NameSet names_;
  std::set<std::string> rows_;

  // The body analysed, or nullopt when it is not one section of one tile this stage batches.
  std::optional<Body> analyse(const For& f) const {
    const Block* b = as<Block>(f.body);
    if (!b || b->stmts.empty())
      return std::nullopt;
    Body body;
    std::map<std::string, int> waits, pops;
    bool packing = false;
    for (const Stmt& s : b->stmts) {
      const Call* c = call_of(s);
      if (!c)
        return std::nullopt;
      body.calls.push_back(c);
      const bool pack = c->fn == Intrinsic::pack_tile;
      if (packing && !pack) // the section ends with its packs
        return std::nullopt;
      packing = pack;
      if (c->fn == Intrinsic::cb_wait_front || c->fn == Intrinsic::cb_pop_front) {
        const IntImm* n = as<IntImm>(c->args[1]);
        if (!n || n->value != 1 || !rows_.count(cb_name(c->args[0])))
          return std::nullopt;
        ++(c->fn == Intrinsic::cb_wait_front ? waits : pops)[cb_name(c->args[0])];
        if (c->fn == Intrinsic::cb_pop_front && !waits.count(cb_name(c->args[0])))
          return std::nullopt; // a pop of a tile waited for before the loop
        continue;
      }
      if (pack && !rows_.count(cb_name(c->args[1])))
        return std::nullopt; // a batch packs B tiles: only a row's CB is sure to have the room
      if (!pack && !tt::writes_dst(c->fn))
        return std::nullopt; // a stream, a store, anything but DST math and packs
      for (std::size_t k : slot_args(c->fn))
        if (!as<IntImm>(c->args[k]))
          return std::nullopt;
    }
    if (!packing || waits != pops)
      return std::nullopt;
    for (const auto& [cb, n] : waits) {
      if (n != 1)
        return std::nullopt;
      body.rotated.insert(cb);
    }
    // Every read of a rotated CB is of its front tile, through an argument the table knows.
    for (const Call* c : body.calls) {
      if (c->fn == Intrinsic::cb_wait_front || c->fn == Intrinsic::cb_pop_front ||
          c->fn == Intrinsic::pack_tile)
        continue;
      std::set<std::size_t> known;
      for (auto [at, index] : tt::cb_tile_args(c->fn))
        if (body.rotated.count(cb_name(c->args[at]))) {
          const IntImm* i = as<IntImm>(c->args[index]);
          if (!i || i->value != 0)
            return std::nullopt;
          known.insert(at);
        }
      for (std::size_t k = 0; k < c->args.size(); ++k)
        if (body.rotated.count(cb_name(c->args[k])) && !known.count(k))
          return std::nullopt;
    }
    // Shared statements: one slot, written from what every iteration sees alike. A slot is
    // shared when every call that writes it (its last slot argument: the SDK's idst / odst) is.
    std::map<std::int64_t, bool> all_writers_shared;
    body.shared.assign(body.calls.size(), false);
    for (std::size_t k = 0; k < body.calls.size(); ++k) {
      const Call* c = body.calls[k];
      if (c->fn == Intrinsic::cb_wait_front || c->fn == Intrinsic::cb_pop_front ||
          c->fn == Intrinsic::pack_tile)
        continue;
      const std::vector<std::size_t> slots = slot_args(c->fn);
      bool shared = slots.size() == 1 && !ir::mentions(b->stmts[k], f.var);
      for (const Expr& a : c->args)
        shared = shared && !body.rotated.count(cb_name(a));
      body.shared[k] = shared;
      const std::int64_t written = as<IntImm>(c->args[slots.back()])->value;
      auto [it, fresh] = all_writers_shared.emplace(written, shared);
      if (!fresh)
        it->second = it->second && shared;
    }
    for (std::size_t k = 0; k < body.calls.size(); ++k)
      if (body.shared[k]) {
        const std::int64_t slot = as<IntImm>(body.calls[k]->args[slot_args(body.calls[k]->fn)[0]])->value;
        body.shared[k] = all_writers_shared[slot];
      }
    std::set<std::int64_t> used;
    for (const Call* c : body.calls)
      for (std::size_t k : (c->fn == Intrinsic::cb_wait_front || c->fn == Intrinsic::cb_pop_front)
                               ? std::vector<std::size_t>{}
                               : slot_args(c->fn))
        used.insert(as<IntImm>(c->args[k])->value);
    for (std::int64_t s : used) {
      auto w = all_writers_shared.find(s);
      if (w != all_writers_shared.end() && w->second)
        body.slot_of_shared.emplace(s, static_cast<std::int64_t>(body.slot_of_shared.size()));
      else
        body.slot_of_per_tile.emplace(s, static_cast<std::int64_t>(body.slot_of_per_tile.size()));
    }
    return body;
  }

  Stmt batch(const For& f) {
    std::optional<Body> body = analyse(f);
    if (!body || body->slot_of_per_tile.empty())
      return nullptr;
    const auto shared = static_cast<std::int64_t>(body->slot_of_shared.size());
    const auto per_tile = static_cast<std::int64_t>(body->slot_of_per_tile.size());
    const std::int64_t B = (capacity_ - shared) / per_tile;
    if (B < 2)
      return nullptr;
    const std::string db = names_.fresh(f.var + "b");
    const Expr batch_var = var(db, Type::i32());
    auto slot = [&](std::int64_t s, std::int64_t k) {
      auto sh = body->slot_of_shared.find(s);
      const std::int64_t out = sh != body->slot_of_shared.end()
                                   ? sh->second
                                   : shared + k * per_tile + body->slot_of_per_tile.at(s);
      if (out < 0 || out >= capacity_)
        throw InternalError("internal error: batch-sections: slot " + std::to_string(out) +
                            " but DST holds " + std::to_string(capacity_) + " tiles");
      return int_imm(out);
    };
    const Block* b = as<Block>(f.body);
    std::vector<Stmt> out;
    for (std::size_t t = 0; t < body->calls.size(); ++t) {
      const Call* c = body->calls[t];
      const SourceRange loc = b->stmts[t]->loc.range;
      if (c->fn == Intrinsic::cb_wait_front || c->fn == Intrinsic::cb_pop_front) {
        out.push_back(evaluate(call(c->fn, {c->args[0], int_imm(B)}), loc));
        continue;
      }
      for (std::int64_t k = 0; k < (body->shared[t] ? 1 : B); ++k) {
        std::vector<Expr> args = c->args;
        for (std::size_t a : slot_args(c->fn))
          args[a] = slot(as<IntImm>(args[a])->value, k);
        for (auto [at, index] : tt::cb_tile_args(c->fn))
          if (body->rotated.count(cb_name(args[at])))
            args[index] = int_imm(k);
        struct Subst : Mutator {
          std::string v;
          Expr by;
          Expr mutate_node(const Var& x, const Expr& self) override {
            return x.name == v ? by : self;
          }
        } subst;
        subst.v = f.var;
        subst.by = ir::add(f.min, ir::add(ir::mul(batch_var, int_imm(B)), int_imm(k)));
        for (Expr& a : args)
          a = subst.mutate(a);
        out.push_back(evaluate(call(c->fn, std::move(args), c->loc.range), loc));
      }
    }
    const Expr batches = binary(BinaryOp::div, f.extent, int_imm(B));
    std::vector<Stmt> loops;
    loops.push_back(
        for_loop(db, int_imm(0), batches, f.role, block(std::move(out)), f.loc.range));
    loops.push_back(for_loop(f.var, ir::add(f.min, ir::mul(batches, int_imm(B))),
                             binary(BinaryOp::mod, f.extent, int_imm(B)), f.role, f.body,
                             f.loc.range));
    return block(std::move(loops));
  }
};

} // namespace

ir::Module batch_sections(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    if (p.rows.empty())
      continue;
    Batcher b(p, tt::dst_capacity(p, tt::dst_fp32(p)));
    for (Function& f : p.functions)
      if (f.kind == FuncKind::kernel)
        f.body = b.walk(f.body);
  }
  return out;
}

} // namespace tk::lower
