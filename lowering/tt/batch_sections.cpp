#include "lowering/tt/batch_sections.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/substitute.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/tt/call_match.hpp"
#include "lowering/tt/cb_tile_args.hpp"
#include "lowering/tt/target.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace tk::lower {

namespace {

using namespace tk::ir;
using tt::call_of;
using tt::cb_name;
using tt::slot_args;

// A loop body this stage batches, analysed.
struct Body {
  std::vector<const Call*> calls;
  std::set<std::string> rotated; // row CBs the body waits for, reads at 0 and pops
  std::vector<bool> shared;      // per statement: runs once per batch
  std::map<std::int64_t, std::int64_t> slot_of_shared;   // shared slot -> its slot in the batch
  std::map<std::int64_t, std::int64_t> slot_of_per_tile; // per-tile slot -> its ordinal
};

class Batcher {
public:
  Batcher(const Program& p, std::int64_t capacity) : capacity_(capacity), names_(p) {
    for (const Function& f : p.functions)
      names_.add(f);
    const Function* kernel = ir::find_function(p, FuncKind::kernel);
    const std::map<std::string, std::string> tiles =
        kernel ? ir::tile_count_vars(*kernel) : std::map<std::string, std::string>{};
    for (const RowOfTiles& r : p.rows) {
      const CircularBuffer* cb = p.find_cb("cb_" + r.name);
      auto t = tiles.find(r.dim);
      if (!cb || (r.tiles && t == tiles.end()))
        continue;
      // The row's tile count: its dimension's tile-count variable, or a batch dimension's value.
      rows_.emplace(cb->name,
                    std::make_pair(var(r.tiles ? t->second : r.dim, Type::i32()), cb->depth));
    }
    for (const CircularBuffer& c : p.cbs)
      if (c.role == CBRole::output)
        outputs_.insert(c.name);
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
      if (Stmt hoisted = hoist(*f))
        return hoisted;
      Stmt body = walk(f->body);
      return body == f->body ? s : for_loop(f->var, f->min, f->extent, f->role, body, f->loc.range);
    }
    if (const IfThenElse* i = as<IfThenElse>(s)) {
      Stmt t = walk(i->then_case);
      Stmt e = i->else_case ? walk(i->else_case) : nullptr;
      return t == i->then_case && e == i->else_case ? s : if_then_else(i->cond, t, e, s->loc.range);
    }
    return s;
  }

private:
  std::int64_t capacity_;
  NameSet names_;
  // row CB -> (its row's tile count, the CB's pages)
  std::map<std::string, std::pair<Expr, std::int64_t>> rows_;
  // The output CBs: a batch's packs into one each reserve and push their own page
  // (insert-dst-management), so the writer's CB needs no room for a batch.
  std::set<std::string> outputs_;

  // A loop inside one open section (its body DST math only, no pack, wait or pop: layernorm's
  // variance walk, `v_sum += square(x - bcast_col(mean))` with v_sum kept in DST) whose body
  // writes a slot from what every iteration sees alike (`unary_bcast` or `copy_tile` of a CB's
  // tile at fixed indices, the slot written by nothing else and read by nothing before it):
  // that statement runs once, before the loop, as a shared statement runs once per batch. The
  // CB's front cannot move in such a body. nullptr when nothing is hoisted.
  Stmt hoist(const For& f) const {
    const Block* b = as<Block>(f.body);
    if (!b || b->stmts.empty())
      return nullptr;
    std::vector<const Call*> calls;
    for (const Stmt& s : b->stmts) {
      const Call* c = call_of(s);
      if (!c || !tt::writes_dst(c->fn) || c->fn == Intrinsic::pack_tile)
        return nullptr;
      for (std::size_t k : slot_args(c->fn))
        if (!as<IntImm>(c->args[k]))
          return nullptr;
      calls.push_back(c);
    }
    std::vector<Stmt> before, body;
    for (std::size_t k = 0; k < calls.size(); ++k) {
      const Call* c = calls[k];
      bool invariant = (c->fn == Intrinsic::unary_bcast || c->fn == Intrinsic::copy_tile) &&
                       !ir::mentions(b->stmts[k], f.var);
      if (invariant) {
        const std::int64_t slot = as<IntImm>(c->args[slot_args(c->fn).back()])->value;
        for (std::size_t o = 0; o < calls.size() && invariant; ++o)
          for (std::size_t a : slot_args(calls[o]->fn))
            invariant = invariant && (o == k || (o > k && a != slot_args(calls[o]->fn).back()) ||
                                      as<IntImm>(calls[o]->args[a])->value != slot);
      }
      (invariant ? before : body).push_back(b->stmts[k]);
    }
    if (before.empty() || body.empty())
      return nullptr;
    before.push_back(for_loop(f.var, f.min, f.extent, f.role, block(std::move(body)), f.loc.range));
    return block(std::move(before));
  }

  // The body analysed, or nullopt when it is not one section of one tile this stage batches.
  std::optional<Body> analyse(const For& f) const {
    const Block* b = as<Block>(f.body);
    if (!b || b->stmts.empty())
      return std::nullopt;
    Body body;
    std::map<std::string, int> waits, pops;
    bool packing = false, writing = false;
    for (const Stmt& s : b->stmts) {
      const Call* c = call_of(s);
      if (!c)
        return std::nullopt;
      body.calls.push_back(c);
      // After the packs, the writes of what they packed into an output (split-kernels gives
      // them to the writer, which then writes a batch's tiles in the order the body did).
      if (c->fn == Intrinsic::df_write_tile) {
        const bool packed = std::any_of(body.calls.begin(), body.calls.end(), [&](const Call* x) {
          return x->fn == Intrinsic::pack_tile && cb_name(x->args[1]) == cb_name(c->args[0]);
        });
        if (!packed || !outputs_.count(cb_name(c->args[0])))
          return std::nullopt;
        writing = true;
        continue;
      }
      if (writing)
        return std::nullopt;
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
      if (pack && !rows_.count(cb_name(c->args[1])) && !outputs_.count(cb_name(c->args[1])))
        return std::nullopt; // a batch packs B tiles: a row's CB has the room, an output's takes
                             // them a page at a time, an intermediate's might have neither
      if (!pack && !tt::writes_dst(c->fn))
        return std::nullopt; // a stream, a store, anything but DST math and packs
      for (std::size_t k : slot_args(c->fn))
        if (!as<IntImm>(c->args[k]))
          return std::nullopt;
    }
    if (!(packing || writing) || waits != pops)
      return std::nullopt;
    // Into an output, one pack a tile: the writer drains its CBs in the body's order, tile by
    // tile, so a batch that packed B tiles of y and then B of z into CBs of fewer pages than B
    // would wait for room in y while the writer waits for z.
    int packs = 0, into_outputs = 0;
    for (const Call* c : body.calls)
      if (c->fn == Intrinsic::pack_tile) {
        ++packs;
        into_outputs += outputs_.count(cb_name(c->args[1])) ? 1 : 0;
      }
    if (into_outputs > 0 && packs > 1)
      return std::nullopt;
    for (const auto& [cb, n] : waits) {
      if (n != 1)
        return std::nullopt;
      body.rotated.insert(cb);
    }
    // Every read of a rotated CB is of its front tile, through an argument the table knows.
    for (const Call* c : body.calls) {
      if (c->fn == Intrinsic::cb_wait_front || c->fn == Intrinsic::cb_pop_front ||
          c->fn == Intrinsic::pack_tile || c->fn == Intrinsic::df_write_tile)
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
          c->fn == Intrinsic::pack_tile || c->fn == Intrinsic::df_write_tile)
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
        const std::int64_t slot =
            as<IntImm>(body.calls[k]->args[slot_args(body.calls[k]->fn)[0]])->value;
        body.shared[k] = all_writers_shared[slot];
      }
    std::set<std::int64_t> used;
    for (const Call* c : body.calls)
      for (std::size_t k : (c->fn == Intrinsic::cb_wait_front || c->fn == Intrinsic::cb_pop_front ||
                            c->fn == Intrinsic::df_write_tile)
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

  // One batch of `size` iterations, the first at `first`: each statement for the batch's tiles in
  // turn (a shared one once), in one section.
  Stmt batch_body(const For& f, const Body& body, std::int64_t size, const Expr& first) const {
    const auto shared = static_cast<std::int64_t>(body.slot_of_shared.size());
    const auto per_tile = static_cast<std::int64_t>(body.slot_of_per_tile.size());
    auto slot = [&](std::int64_t s, std::int64_t k) {
      auto sh = body.slot_of_shared.find(s);
      const std::int64_t out = sh != body.slot_of_shared.end()
                                   ? sh->second
                                   : shared + k * per_tile + body.slot_of_per_tile.at(s);
      if (out < 0 || out >= capacity_)
        throw InternalError("internal error: batch-sections: slot " + std::to_string(out) +
                            " but DST holds " + std::to_string(capacity_) + " tiles");
      return int_imm(out);
    };
    const Block* b = as<Block>(f.body);
    std::vector<Stmt> out;
    for (std::size_t t = 0; t < body.calls.size(); ++t) {
      const Call* c = body.calls[t];
      const SourceRange loc = b->stmts[t]->loc.range;
      if (c->fn == Intrinsic::cb_wait_front || c->fn == Intrinsic::cb_pop_front) {
        out.push_back(evaluate(call(c->fn, {c->args[0], int_imm(size)}), loc));
        continue;
      }
      for (std::int64_t k = 0; k < (body.shared[t] ? 1 : size); ++k) {
        std::vector<Expr> args = c->args;
        for (std::size_t a : slot_args(c->fn))
          args[a] = slot(as<IntImm>(args[a])->value, k);
        for (auto [at, index] : tt::cb_tile_args(c->fn))
          if (body.rotated.count(cb_name(args[at])))
            args[index] = int_imm(k);
        Substitute subst;
        subst.by[f.var] = ir::add(first, int_imm(k));
        for (Expr& a : args)
          a = subst.mutate(a);
        out.push_back(evaluate(call(c->fn, std::move(args), c->loc.range), loc));
      }
    }
    return block(std::move(out));
  }

  // The loop as batches: as many of the largest size B as fit, then of each power of two below B
  // (at most one each: what is left is less than the size before), then the body as it was for
  // the last tile if one is left. n = E tiles: `for vb in 0 .. E / B`, then `for vb in 0 .. E % B
  // / b` for b = 4, 2 (those below B), then `for v in min + E - r .. +r` with r the tiles left.
  Stmt batch(const For& f) {
    std::optional<Body> body = analyse(f);
    if (!body || body->slot_of_per_tile.empty())
      return nullptr;
    const auto shared = static_cast<std::int64_t>(body->slot_of_shared.size());
    const auto per_tile = static_cast<std::int64_t>(body->slot_of_per_tile.size());
    const std::int64_t B = (capacity_ - shared) / per_tile;
    if (B < 2)
      return nullptr;
    std::vector<std::int64_t> sizes = {B};
    for (std::int64_t b = 1; b < B; b *= 2)
      if (b >= 2)
        sizes.insert(sizes.begin() + 1, b);
    // A batch's pages must not wrap around its CB's end (the packer writes, and copy_tile reads,
    // a reservation's pages from one pointer on): the row CBs the body uses each hold whole rows
    // (their pages a multiple of the row's tiles), so a row starts at a multiple of its length
    // and a batch inside a row stays inside the CB. Otherwise no tile runs in a batch.
    std::set<std::string> used;
    for (const Call* c : body->calls)
      for (const Expr& a : c->args)
        if (rows_.count(cb_name(a)))
          used.insert(cb_name(a));
    Expr whole = int_imm(1);
    for (const std::string& cb : used) {
      const auto& [tiles, pages] = rows_.at(cb);
      whole =
          ir::mul(whole, int_imm(1) - binary(BinaryOp::min, int_imm(pages) % tiles, int_imm(1)));
    }
    std::vector<Stmt> loops;
    const std::string nb = names_.fresh(f.var + "_batched");
    const Expr batched = var(nb, Type::i32());
    loops.push_back(decl(nb, Type::i32(), ir::mul(f.extent, whole), f.loc.range));
    Expr left = batched; // the tiles not yet in a batch
    for (std::int64_t size : sizes) {
      const std::string db = names_.fresh(f.var + "b");
      const Expr start = left == batched ? f.min : ir::add(f.min, batched - left);
      const Expr first = ir::add(start, ir::mul(var(db, Type::i32()), int_imm(size)));
      loops.push_back(for_loop(db, int_imm(0), binary(BinaryOp::div, left, int_imm(size)), f.role,
                               batch_body(f, *body, size, first), f.loc.range));
      left = binary(BinaryOp::mod, left, int_imm(size));
    }
    loops.push_back(for_loop(f.var, ir::add(f.min, batched - left), f.extent - batched + left,
                             f.role, f.body, f.loc.range));
    return block(std::move(loops));
  }
};

} // namespace

ir::Module batch_sections(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    Batcher b(p, tt::dst_capacity(p, tt::dst_fp32(p)));
    for (Function& f : p.functions)
      if (f.kind == FuncKind::kernel)
        f.body = b.walk(f.body);
  }
  return out;
}

} // namespace tk::lower
