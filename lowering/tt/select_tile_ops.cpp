#include "lowering/tt/select_tile_ops.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/tt/select_tile_ops_state.hpp"
#include "lowering/tt/target.hpp"

#include <algorithm>

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

bool is_wait_upto(const Stmt& s) {
  const Evaluate* e = as<Evaluate>(s);
  const Call* c = e ? as<Call>(e->call) : nullptr;
  return c && c->fn == Intrinsic::cb_wait_upto;
}

// A cb_wait_front, or a loop of nothing else (keep-rows' wait for a row's window, in a loop of 0
// or 1 iterations).
bool is_window_wait(const Stmt& s) {
  if (const For* f = as<For>(s)) {
    const std::vector<Stmt>& body = as<Block>(f->body)->stmts;
    return !body.empty() && std::all_of(body.begin(), body.end(), is_window_wait);
  }
  const Evaluate* e = as<Evaluate>(s);
  const Call* c = e ? as<Call>(e->call) : nullptr;
  return c && c->fn == Intrinsic::cb_wait_front;
}

std::optional<Accumulation> accumulation_of(const For& f, const std::string& v) {
  const Block* b = as<Block>(f.body);
  std::size_t n = 0; // the leading waits
  while (n < b->stmts.size() && is_wait_upto(b->stmts[n]))
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

class KernelSelection {
public:
  KernelSelection(Program& p, const Function& k, Diagnostics& d, bool economy)
      : prog_(p), sel_(p, k, d, economy), diags_(d) {}

  Stmt run(const Stmt& body) {
    Stmt out = walk(*as<Block>(body));
    if (!sel_.used_reduction())
      return out;
    // The scaler tile arrives once per core and stays at the front of its CB until the end.
    std::vector<Stmt> top;
    const std::string& s = sel_.scaler_cb();
    for (const Stmt& st : as<Block>(out)->stmts) {
      const For* f = as<For>(st);
      bool core_loop = f && f->role == ForRole::per_core;
      if (core_loop) {
        top.push_back(evaluate(
            call(Intrinsic::df_scaler_tile, {cb_ref(s), int_imm(tt::kScalerOne, Type::u32())})));
        top.push_back(evaluate(call(Intrinsic::cb_wait_front, {cb_ref(s), int_imm(1)})));
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
    for (std::size_t k = 0; k < ss.size();) {
      sel_.prepare_splits(ss[k]);
      std::size_t n = statement(ss, k, last);
      for (const auto& [v, at] : last)
        if (at >= k && at < k + n && sel_.holds(v)) // dead: its tiles leave their CBs
          sel_.drop(v);
      k += n;
    }
    for (const auto& [v, at] : last)
      if (sel_.resident(v))
        throw InternalError("internal error: select-tile-ops: '" + v + "' left in DST");
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
      out_->push_back(
          for_loop(f->var, f->min, f->extent, f->role, walk(*as<Block>(f->body)), f->loc.range));
      return 1;
    }
    if (const Store* st = as<Store>(s)) {
      std::string cb = cb_of_tensor(st->tensor);
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
    // tiles a first walk took as they arrived, before those it streams) do not end the section.
    std::size_t gap = 0;
    while (k + 1 + gap < ss.size() && is_window_wait(ss[k + 1 + gap]))
      ++gap;
    const For* loop = k + 1 + gap < ss.size() ? as<For>(ss[k + 1 + gap]) : nullptr;
    if (loop) {
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
    bool declared_here = it != last.end() && !sel_.split(name); // a split value needs its CB
    const Assign* next_assign = next ? as<Assign>(*next) : nullptr;
    if (declared_here && next && !loop && it->second == k + 1 &&
        ir::count_mentions(*next, name) == 1 && !(next_assign && next_assign->name == name)) {
      sel_.set_resident(name, v);
      return 1;
    }
    std::string cb = sel_.var_cb(name);
    sel_.pack(v, cb);
    sel_.close_section();
    sel_.emit(Intrinsic::cb_wait_front, {cb_ref(cb), int_imm(1)});
    sel_.set_in_cb(name, true);
    return 1;
  }

  std::vector<Stmt>* out_ = nullptr;
};

} // namespace

ir::Module select_tile_ops(const ir::Module& m, Diagnostics& diags) {
  ir::Module out = m;
  try {
    for (Program& p : out.programs) {
      const Function* kernel = ir::find_function(p, FuncKind::kernel);
      if (!kernel || p.attrs.count("matmul_sub_block"))
        continue;
      const Function copy = *kernel;
      // DST precision is decided once, here; every later stage reads it (tt::dst_fp32).
      p.attrs["dst_fp32"] = {tt::decide_dst_fp32(p, copy)};
      // The exact-sum rules take CBs of their own (a split's hi and lo, dest-only temporaries).
      // A kernel they take past the 8 intermediate CBs is selected again without them
      // (economy): its carried sums stay exact, but its split values and spilled sums are read as
      // any f32 operand (docs/lowering.md, "Sums that stay exact").
      const Program before = p;
      Diagnostics trial(diags.file());
      Stmt body;
      try {
        body = KernelSelection(p, copy, trial, /*economy=*/false).run(copy.body);
      } catch (const UserErrorReported&) {
        p = before;
        body = KernelSelection(p, copy, diags, /*economy=*/true).run(copy.body);
      }
      ir::find_function(p, FuncKind::kernel)->body = body;
    }
  } catch (const UserErrorReported&) {
    return m;
  }
  return out;
}

} // namespace tk::lower
