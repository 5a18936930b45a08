#include "lowering/tt/select_tile_ops.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/tt/select_tile_ops_rows.hpp"
#include "lowering/tt/select_tile_ops_state.hpp"
#include "lowering/tt/target.hpp"

#include <algorithm>
#include <utility>

namespace tk::lower {

namespace {

using namespace tk::ir;
using tt::Val;

// `v = combine(v, rhs)` as the only statement of a loop body (after the waits for a kept row's
// tiles as they arrive, keep-rows' cb.wait_upto): an accumulation the section keeps in DST across
// the loop, as the SDK's mm.cpp and reduce kernels do.
struct Accumulation {
  Intrinsic combine;
  Expr rhs;
  std::vector<Stmt> waits = {};
};

// Whether `s` is a call of `fn` as a statement.
bool calls(const Stmt& s, Intrinsic fn) {
  const Evaluate* e = as<Evaluate>(s);
  const Call* c = e ? as<Call>(e->call) : nullptr;
  return c && c->fn == fn;
}

// `s` sets a tile variable to a value that takes the max of `name` along rows or columns.
bool max_reduces(const Stmt& s, const std::string& name) {
  const Assign* a = as<Assign>(s);
  const Decl* d = as<Decl>(s);
  const Expr value = a ? a->value : d ? d->value : nullptr;
  if (!value || !value->type.is_tile())
    return false;
  struct Find : Visitor {
    const std::string& name;
    bool found = false;
    explicit Find(const std::string& n) : name(n) {}
    void visit_node(const Call& c) override {
      if ((c.fn == Intrinsic::tile_rowmax || c.fn == Intrinsic::tile_colmax) && !c.args.empty())
        if (const Var* v = as<Var>(c.args[0]); v && v->name == name)
          found = true;
      Visitor::visit_node(c);
    }
  } f(name);
  f.visit(value);
  return f.found;
}

// A cb_wait_front, or a loop of nothing else (keep-rows' wait for a row's window, in a loop of 0
// or 1 iterations).
bool is_window_wait(const Stmt& s) {
  if (const For* f = as<For>(s)) {
    const std::vector<Stmt>& body = as<Block>(f->body)->stmts;
    return !body.empty() && std::all_of(body.begin(), body.end(), is_window_wait);
  }
  return calls(s, Intrinsic::cb_wait_front);
}

std::optional<Accumulation> accumulation_of(const For& f, const std::string& v) {
  const Block* b = as<Block>(f.body);
  std::size_t n = 0; // the leading waits
  while (n < b->stmts.size() && calls(b->stmts[n], Intrinsic::cb_wait_upto))
    ++n;
  const std::vector<Stmt> waits(b->stmts.begin(), b->stmts.begin() + n);
  const Assign* a = b->stmts.size() == n + 1 ? as<Assign>(b->stmts[n]) : nullptr;
  const Call* c = a && a->name == v ? as<Call>(a->value) : nullptr;
  if (!c)
    return std::nullopt;
  auto is_v = [&](const Expr& e) {
    const Var* x = as<Var>(e);
    return x && x->name == v;
  };
  if (c->fn == Intrinsic::tile_matmul_acc && is_v(c->args[0]) &&
      ir::count_mentions(c->args[1], v) + ir::count_mentions(c->args[2], v) == 0)
    return Accumulation{Intrinsic::tile_add, call(Intrinsic::tile_matmul, {c->args[1], c->args[2]}),
                        waits};
  if (c->fn != Intrinsic::tile_add && c->fn != Intrinsic::tile_max)
    return std::nullopt;
  for (int k = 0; k < 2; ++k)
    if (is_v(c->args[k]) && ir::count_mentions(c->args[1 - k], v) == 0)
      return Accumulation{c->fn, c->args[1 - k], waits};
  return std::nullopt;
}

// Whether loop f walks CB `cb`: its body reads a tile of it at an index that reads f's variable
// (cb.tile(cb, j)).
bool walks_cb(const For& f, const std::string& cb) {
  for (const Call* c : ir::calls_of(f.body, Intrinsic::cb_tile))
    if (const Ref* r = as<Ref>(c->args.at(0));
        r && r->name == cb && ir::vars_read(c->args.at(1)).count(f.var))
      return true;
  return false;
}

class KernelSelection {
public:
  KernelSelection(Program& p, const Function& k, Diagnostics& d, bool economy)
      : prog_(p), sel_(p, k, d, economy), diags_(d),
        row_capacity_(tt::row_capacity(
            static_cast<std::int64_t>(ir::calls_of(k.body, Intrinsic::row_alloc).size()))) {
    for (const auto& [dim, count] : ir::tile_count_vars(k))
      row_dims_[count] = dim;
  }

  Stmt run(const Stmt& body) {
    Stmt out = walk(*as<Block>(body));
    sel_.check_fpu_exp_args(out);
    if (!sel_.used_reduction())
      return out;
    // The scaler tile arrives once per core and stays at the front of its CB until the end.
    std::vector<Stmt> top;
    const std::string& s = sel_.scaler_cb();
    for (const Stmt& st : as<Block>(out)->stmts) {
      const For* f = as<For>(st);
      bool core_loop = f && f->role == ForRole::per_core;
      if (core_loop) {
        // Before the loops that only read DRAM right before the per-core loop (keep-rows' first
        // work item's row, read one ahead): the first walk over that row reduces with it.
        auto at = top.end();
        while (at != top.begin() && as<For>(*std::prev(at)) &&
               ir::any_call(*std::prev(at),
                            [](Intrinsic fn) { return fn == Intrinsic::df_read_block; }) &&
               !ir::any_call(*std::prev(at),
                             [](Intrinsic fn) { return fn != Intrinsic::df_read_block; }))
          --at;
        at = top.insert(at, evaluate(call(Intrinsic::df_scaler_tile,
                                          {cb_ref(s), int_imm(tt::kScalerOne, Type::u32())})));
        top.insert(at + 1, evaluate(call(Intrinsic::cb_wait_front, {cb_ref(s), int_imm(1)})));
      }
      top.push_back(st);
      if (core_loop)
        top.push_back(evaluate(call(Intrinsic::cb_pop_front, {cb_ref(s), int_imm(1)})));
    }
    return block(std::move(top));
  }

private:
  Program& prog_;
  tt::TileSelector sel_;
  Diagnostics& diags_;

  // A row of tiles during selection (select_tile_ops_rows.hpp): its CB holds all its tiles (full)
  // from the loop that first sets them until a loop of its block reads them for the last time.
  struct Row {
    Expr extent;
    const Block* home = nullptr; // the block that declares it
    bool full = false;
    bool pop_on_set = false; // inside a loop over it: the set replaces a tile the CB holds
    bool in_loop = false;    // inside a loop over it
    Expr cursor;             // where the next loop over it starts: 0, or where a split loop stopped
  };
  std::map<std::string, Row> rows_;
  // Inside a loop that reads a kept row's reader half: the output CB the reader drains, per tensor
  // stored (CircularBuffer::reader_writes_for, keep-rows).
  std::map<std::string, std::string> reader_stores_;
  std::int64_t row_capacity_;
  std::map<std::string, std::string> row_dims_; // tile-count variable -> its dimension
  const Decl* rows_decl_ = nullptr;             // the row being declared

  std::string cb_of_tensor(const std::string& t) const {
    for (const CircularBuffer& c : prog_.cbs)
      if (c.tensor == t)
        return c.name;
    throw InternalError("internal error: select-tile-ops: no circular buffer for '" + t + "'");
  }

  Stmt walk(const Block& b) {
    std::vector<Stmt> out;
    std::vector<Stmt>* saved = nullptr;
    std::swap(saved, out_);
    out_ = &out;
    sel_.set_output(out_);
    const std::vector<Stmt>& ss = b.stmts;
    // Tile variables declared in this block, and the last statement that mentions each.
    std::map<std::string, std::size_t> last;
    for (std::size_t k = 0; k < ss.size(); ++k) {
      if (const Decl* d = as<Decl>(ss[k]); d && d->type.is_tile())
        last[d->name] = k;
      for (auto& [v, at] : last)
        if (ir::count_mentions(ss[k], v) > 0)
          at = k;
    }
    const Block* saved_block = block_;
    block_ = &b;
    for (std::size_t k = 0; k < ss.size();) {
      const bool copies = sel_.has_fpu_copies();
      std::size_t n = row_statement(ss, k);
      if (n == 0)
        n = statement(ss, k, last);
      if (copies && !calls(ss[k], Intrinsic::cb_pop_front))
        sel_.drop_fpu_copies(); // made for this statement, which did not read them
      for (const auto& [v, at] : last)
        if (at >= k && at < k + n && sel_.in_cb(v)) // dead: its tiles leave their CBs
          sel_.drop(v);
      k += n;
    }
    for (const auto& [v, at] : last)
      if (sel_.resident(v))
        throw InternalError("internal error: select-tile-ops: '" + v + "' left in DST");
    drain_rows(b);
    block_ = saved_block;
    out_ = saved;
    sel_.set_output(out_);
    return block(std::move(out));
  }

  // Selects ss[k]; returns how many statements it consumed (2 for a value and the accumulation
  // loop that follows it).
  std::size_t statement(const std::vector<Stmt>& ss, std::size_t k,
                        const std::map<std::string, std::size_t>& last) {
    const Stmt& s = ss[k];
    sel_.set_loc(s->loc.range);
    if (const For* f = as<For>(s)) {
      std::map<std::string, std::string> saved = reader_stores_;
      for (const CircularBuffer& c : prog_.cbs)
        if (!c.reader_writes_for.empty() && walks_cb(*f, c.reader_writes_for))
          reader_stores_.emplace(c.tensor, c.name);
      out_->push_back(
          for_loop(f->var, f->min, f->extent, f->role, walk(*as<Block>(f->body)), f->loc.range));
      reader_stores_ = std::move(saved);
      return 1;
    }
    if (const Store* st = as<Store>(s)) {
      auto by_reader = reader_stores_.find(st->tensor);
      std::string cb =
          by_reader != reader_stores_.end() ? by_reader->second : cb_of_tensor(st->tensor);
      Val v = sel_.select(column_vector_store(*st));
      sel_.pack(v, cb);
      sel_.emit(Intrinsic::df_write_tile,
                {cb_ref(cb), tensor_ref(st->tensor), sel_.page_of(st->tensor, st->indices)});
      sel_.close_section();
      return 1;
    }
    std::string name;
    Expr value;
    bool tile = false;
    if (const Decl* d = as<Decl>(s)) {
      name = d->name, value = d->value, tile = d->type.is_tile();
      if (!tile && d->type.kind == Type::Kind::f32) {
        diags_.error(s->loc.range, "a scalar local is not supported on Tenstorrent yet; write "
                                   "the scalar expression where it is used");
        throw UserErrorReported{};
      }
    } else if (const Assign* a = as<Assign>(s)) {
      name = a->name, value = a->value, tile = value->type.is_tile();
    }
    if (!tile) {
      out_->push_back(s);
      return 1;
    }
    Val v = sel_.select(value);
    sel_.to_dst(v, /*keep_reduction=*/true); // packed or kept for its next statement below
    sel_.drop(name);                         // the old value is dead once the new one is computed
    return define(ss, k, last, name, v);
  }

  // What a store packs. The packer rounds a Bfp8_b tile in runs of 16 elements of a row that share
  // one exponent, so a column vector's column 0 would share it with columns the store drops: a
  // value that may hold anything there is broadcast from column 0 first (the CPU rounds the
  // column alone, tests/difftest/bfp8_column_vector_output.tk).
  Expr column_vector_store(const Store& st) const {
    const Tensor& t = *prog_.find_tensor(st.tensor);
    const bool column = !t.dims.empty() && t.dims.back().name.empty() && t.dims.back().size == 1;
    if (t.dtype != DType::bfp8 || !column || sel_.outside(st.value).col == tt::Outside::zero)
      return st.value;
    return call(Intrinsic::tile_bcast_col, {st.value});
  }

  // Where a new value of `name` goes: it stays in DST for an accumulation loop right after it,
  // or for the next statement when that is its only and last use; otherwise into its CB.
  std::size_t define(const std::vector<Stmt>& ss, std::size_t k,
                     const std::map<std::string, std::size_t>& last, const std::string& name,
                     Val v) {
    const Stmt* next = k + 1 < ss.size() ? &ss[k + 1] : nullptr;
    // The waits for a kept row's window between two accumulation loops (keep-rows: after the
    // tiles a first walk took as they arrived, before those it streams) do not end the section,
    // nor does a streamed row's read of its window and the wait for it (stream-rows: K's row
    // before `for e { s += Q[h, i, e] @ transpose(K[h, j, e]) }`), so the sum stays in DST.
    std::size_t gap = 0;
    while (k + 1 + gap < ss.size() &&
           (is_window_wait(ss[k + 1 + gap]) || calls(ss[k + 1 + gap], Intrinsic::df_read_block)))
      ++gap;
    const Stmt* after = k + 1 + gap < ss.size() ? &ss[k + 1 + gap] : nullptr;
    const For* loop = after ? as<For>(*after) : nullptr;
    // A loop over a row of tiles is row_statement's: its reads wait for and pop the row's tiles.
    const bool row_loop = loop && std::any_of(rows_.begin(), rows_.end(), [&](const auto& r) {
                            return ir::count_mentions(*after, r.first) > 0;
                          });
    if (loop && !row_loop) {
      auto acc = accumulation_of(*loop, name);
      const Expr self = var(name, Type::tile(DType::f32));
      // Into DST by the FPU (matmul, reduce), or by the SFPU's fp32 add (a tile from a CB).
      const bool fpu = acc && sel_.accumulates_from_cbs(self, acc->rhs, acc->combine);
      if (fpu || (acc && sel_.sums_in_dst(name, acc->rhs, acc->combine))) {
        sel_.set_resident(name, v);
        std::vector<Stmt> body = acc->waits;
        std::vector<Stmt>* saved = out_;
        out_ = &body;
        sel_.set_output(out_);
        sel_.set_loc(as<Block>(loop->body)->stmts[acc->waits.size()]->loc.range);
        Val x =
            fpu ? sel_.accumulate(self, acc->rhs, acc->combine) : sel_.sum_in_dst(self, acc->rhs);
        out_ = saved;
        sel_.set_output(out_);
        out_->insert(out_->end(), ss.begin() + k + 1, ss.begin() + k + 1 + gap);
        out_->push_back(for_loop(loop->var, loop->min, loop->extent, loop->role,
                                 block(std::move(body)), loop->loc.range));
        return 1 + gap + define(ss, k + 1 + gap, last, name, x);
      }
    }
    auto it = last.find(name);
    bool declared_here = it != last.end();
    const Assign* next_assign = next ? as<Assign>(*next) : nullptr;
    if (declared_here && next && !loop && it->second == k + 1 &&
        ir::count_mentions(*next, name) == 1 && !(next_assign && next_assign->name == name)) {
      sel_.set_resident(name, v);
      return 1;
    }
    // The next statement, past the pops of windows the value no longer reads, redefines it from
    // its one use (after attention's score sum, `s = where(tril(i, j), s * scale, fill(-inf))`):
    // the value stays in DST for it, not packed and copied back in.
    std::size_t n = k + 1;
    while (n < ss.size() && calls(ss[n], Intrinsic::cb_pop_front))
      ++n;
    const Assign* redefined = n < ss.size() ? as<Assign>(ss[n]) : nullptr;
    if (declared_here && !loop && redefined && redefined->name == name &&
        redefined->value->type.is_tile() && ir::count_mentions(redefined->value, name) == 1) {
      sel_.set_resident(name, v);
      return 1;
    }
    std::string cb = sel_.var_cb(name);
    // Read next by a max reduction, which takes it from an ordinary CB (the FPU cannot read a
    // dest-only one): the copy is packed now, from the slot that holds it (attention's `s` before
    // `mn = max(m, rowmax(s))`), not copied back in and packed in a section of its own.
    std::string copy;
    if (v->mask < 0 && sel_.dest_only_var(name) && n < ss.size() && max_reduces(ss[n], name))
      copy = sel_.pack_fpu_copy(v, name);
    sel_.pack(v, cb);
    sel_.close_section();
    sel_.emit(Intrinsic::cb_wait_front, {cb_ref(cb), int_imm(1)});
    if (!copy.empty())
      sel_.emit(Intrinsic::cb_wait_front, {cb_ref(copy), int_imm(1)});
    sel_.set_in_cb(name, true);
    return 1;
  }

  // ---- rows of tiles ----

  // Selects ss[k] when it declares, sets or loops over a row; 0 when it is not about rows.
  std::size_t row_statement(const std::vector<Stmt>& ss, std::size_t k) {
    const Stmt& s = ss[k];
    if (const Decl* d = as<Decl>(s); d && d->type.is_row()) {
      sel_.new_row_cb(d->name, row_capacity_);
      rows_[d->name] = Row{as<Call>(d->value)->args.at(0), block_, false, false, false, int_imm(0)};
      rows_decl_ = d;
      record_row(d->name, as<Call>(d->value)->args.at(0));
      return 1;
    }
    if (const Assign* a = as<Assign>(s); a && rows_.count(a->name)) {
      Row& r = rows_.at(a->name);
      const Call* set = as<Call>(a->value);
      sel_.set_loc(s->loc.range);
      Val v = sel_.select(set->args.at(2));
      sel_.to_dst(v);
      const std::string& cb = sel_.row_cb(a->name);
      if (r.pop_on_set) // the old tile leaves the front once the new one is computed
        sel_.emit(Intrinsic::cb_pop_front, {cb_ref(cb), int_imm(1)});
      sel_.pack(v, cb);
      sel_.close_section();
      return 1;
    }
    const For* f = as<For>(s);
    std::vector<std::pair<std::string, tt::RowUse>> uses;
    for (auto& [name, r] : rows_) {
      if (r.in_loop || ir::count_mentions(s, name) == 0)
        continue;
      if (!f)
        tt::row_outside_loop(s, name, diags_);
      // A loop that holds loops over the row (the key loop around `for d { o[d] = ... }`) is
      // walked as any loop; the loops inside it come here in turn.
      const std::vector<Stmt>& inner = as<Block>(f->body)->stmts;
      if (std::all_of(inner.begin(), inner.end(), [&](const Stmt& x) {
            return as<For>(x) || ir::count_mentions(x, name) == 0;
          }))
        continue;
      if (std::optional<tt::RowUse> u = tt::row_use(*f, name, r.extent, r.cursor, diags_)) {
        // A loop that stops short must be continued by the next statement (keep-rows' split at
        // row_kept, perhaps after its waits for the kept window), or it covers only part of the
        // row (a triangular `0 .. d + 1`).
        std::size_t n = k + 1;
        while (n < ss.size() && is_window_wait(ss[n]))
          ++n;
        const For* next = n < ss.size() ? as<For>(ss[n]) : nullptr;
        if (!u->ends && (!next || print(next->min) != print(tt::row_cursor(*f, r.cursor)) ||
                         ir::count_mentions(ss[n], name) == 0))
          tt::row_partial_loop(s, name, diags_);
        uses.emplace_back(name, *u);
      }
    }
    if (uses.empty())
      return 0;
    Stmt body = f->body;
    std::vector<std::string> last_reads; // rows this loop reads for the last time: popped
    for (auto& [name, u] : uses) {
      Row& r = rows_.at(name);
      if (u.reads && !r.full)
        row_error(s, name, "it is read before a loop sets all its tiles");
      if (!u.sets && !u.reads)
        continue;
      if (!u.sets) {
        // The row's last reads when nothing after this loop in its own block mentions it;
        // otherwise each tile goes back to the CB's back after its reads, for the next loop.
        // (The loops that continue this one, when keep-rows split it, read the same time.)
        bool later = false;
        Expr at = u.ends ? nullptr : tt::row_cursor(*f, r.cursor);
        for (std::size_t n = k + 1; n < ss.size(); ++n) {
          if (is_window_wait(ss[n]))
            continue;
          const For* g = as<For>(ss[n]);
          if (at && g && print(g->min) == print(at)) {
            const bool ends = print(g->extent) == print(r.extent - at);
            at = ends ? nullptr : tt::row_cursor(*g, at);
            continue;
          }
          at = nullptr;
          later |= ir::count_mentions(ss[n], name) > 0;
        }
        if (block_ == r.home && !later) {
          last_reads.push_back(name);
          continue;
        }
        std::vector<Stmt> stmts = as<Block>(body)->stmts;
        const Expr row = var(name, Type::row(DType::f32));
        const Expr d = var(f->var, Type::i32());
        stmts.push_back(
            assign(name, call(Intrinsic::row_set, {row, d, call(Intrinsic::row_get, {row, d})})));
        body = block(std::move(stmts));
        u.sets = true;
      }
      if (!r.full && block_ != r.home)
        row_error(s, name, "its tiles are first set in a loop nested below its declaration");
    }
    // Walk the body with each set popping the old tile when the CB holds the row.
    std::map<std::string, bool> saved;
    for (const auto& [name, u] : uses) {
      Row& r = rows_.at(name);
      saved[name] = std::exchange(r.pop_on_set, r.full);
      r.in_loop = true;
    }
    Stmt walked = walk(*as<Block>(body));
    for (const auto& [name, u] : uses)
      rows_.at(name).in_loop = false;
    std::vector<Stmt> stmts;
    for (const auto& [name, u] : uses)
      if (u.reads)
        stmts.push_back(
            evaluate(call(Intrinsic::cb_wait_front, {cb_ref(sel_.row_cb(name)), int_imm(1)})));
    for (const Stmt& x : as<Block>(walked)->stmts)
      stmts.push_back(x);
    for (const std::string& name : last_reads)
      stmts.push_back(
          evaluate(call(Intrinsic::cb_pop_front, {cb_ref(sel_.row_cb(name)), int_imm(1)})));
    for (const auto& [name, was] : saved)
      rows_.at(name).pop_on_set = was;
    for (const auto& [name, u] : uses) { // a split loop's parts change the row's state together
      Row& r = rows_.at(name);
      r.cursor = u.ends ? int_imm(0) : tt::row_cursor(*f, r.cursor);
      if (u.ends)
        r.full = u.sets || !std::count(last_reads.begin(), last_reads.end(), name);
    }
    out_->push_back(
        for_loop(f->var, f->min, f->extent, f->role, block(std::move(stmts)), f->loc.range));
    return 1;
  }

  // A row its block leaves holding tiles (its last loop set them) is emptied there.
  void drain_rows(const Block& b) {
    for (auto it = rows_.begin(); it != rows_.end();) {
      if (it->second.home != &b) {
        ++it;
        continue;
      }
      if (it->second.full) {
        const std::string cb = sel_.row_cb(it->first);
        std::vector<Stmt> body{evaluate(call(Intrinsic::cb_wait_front, {cb_ref(cb), int_imm(1)})),
                               evaluate(call(Intrinsic::cb_pop_front, {cb_ref(cb), int_imm(1)}))};
        out_->push_back(for_loop(ir::NameSet(prog_).fresh("drain"), int_imm(0), it->second.extent,
                                 ForRole::serial, block(std::move(body))));
      }
      it = rows_.erase(it);
    }
  }

  [[noreturn]] void row_error(const Stmt& s, const std::string& row, const std::string& why) {
    diags_.error(s->loc.range, "row of tiles '" + row + "' on Tenstorrent: " + why);
    throw UserErrorReported{};
  }

  // The program attribute `rows`: [name, dimension, capacity, tiles] per row, for the host's check
  // that the row's tiles (the dimension's tile count when `tiles`, else the dimension) fit its CB.
  void record_row(const std::string& name, const Expr& extent) {
    if (const IntImm* n = as<IntImm>(extent)) { // a literal extent: checked here
      if (n->value > row_capacity_) {
        diags_.error(as<Call>(rows_decl_->value)->loc.range,
                     "row of tiles '" + name + "' has " + std::to_string(n->value) +
                         " tiles, but its circular buffer holds " + std::to_string(row_capacity_));
        throw UserErrorReported{};
      }
      return;
    }
    // Over tiles(D) (the extent is D's tile count) or 0 .. B (a batch dimension itself).
    const Var* v = as<Var>(extent);
    if (!v)
      throw InternalError("internal error: select-tile-ops: row '" + name + "' of " +
                          print(extent) + " tiles");
    auto dim = row_dims_.find(v->name);
    const bool tiles = dim != row_dims_.end();
    prog_.rows.push_back({name, tiles ? dim->second : v->name, row_capacity_, tiles});
  }

  std::vector<Stmt>* out_ = nullptr;
  const Block* block_ = nullptr;
};

} // namespace

ir::Module select_tile_ops(const ir::Module& m, Diagnostics& diags) {
  ir::Module out = m;
  try {
    for (Program& p : out.programs) {
      const Function* kernel = ir::find_function(p, FuncKind::kernel);
      if (!kernel || p.blocking)
        continue;
      const Function copy = *kernel;
      // DST precision is decided once, here; every later stage reads it (tt::dst_fp32).
      p.dst_fp32 = tt::decide_dst_fp32(p, copy);
      // The exact-sum rules take CBs of their own (a split's hi and lo, dest-only temporaries).
      // A kernel they take past the 8 intermediate CBs is selected again without them
      // (economy): its carried sums stay exact, but its split values and spilled sums are read as
      // any f32 operand (docs/lowering.md, "Sums that stay exact").
      const Program before = p;
      Stmt body;
      // Loop-invariant broadcast operands are hoisted before their loop
      // (select_tile_ops_hoist.cpp) where the CB that takes fits: tried hoisted, then not, each
      // first with the exact-sum rules and then in economy.
      Function hoisted = copy;
      hoisted.body = tt::hoist_invariant_broadcasts(p, copy.body);
      const bool same = hoisted.body == copy.body; // nothing hoisted: two tries, not four
      const Function* tries[] = {&hoisted, &copy, &hoisted, &copy};
      for (int t = 0; t < 4; ++t) {
        const Function& f = *tries[t];
        if (same && t % 2 == 1)
          continue;
        p = before;
        if (t == (same ? 2 : 3)) { // the last: its errors are the kernel's
          body = KernelSelection(p, f, diags, /*economy=*/true).run(f.body);
          break;
        }
        Diagnostics attempt(diags.file());
        try {
          body = KernelSelection(p, f, attempt, /*economy=*/t >= 2).run(f.body);
          break;
        } catch (const UserErrorReported&) {
        }
      }
      ir::find_function(p, FuncKind::kernel)->body = body;
    }
  } catch (const UserErrorReported&) {
    return m;
  }
  return out;
}

} // namespace tk::lower
