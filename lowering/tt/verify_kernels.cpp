#include "lowering/tt/verify_kernels.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"
#include "lowering/tt/verify_kernels_balance.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace tk::lower {

namespace {

using namespace tk::ir;

struct Failure {
  std::string what;
};
[[noreturn]] void fail(std::string what) {
  throw Failure{std::move(what)};
}

std::string one_line(const Stmt& s) {
  std::string t = print(s);
  while (!t.empty() && t.back() == '\n')
    t.pop_back();
  return t;
}

const Function& kernel(const Program& p, FuncKind k) {
  const Function* f = ir::find_function(p, k);
  if (!f)
    fail("program '" + p.name + "' has no " + std::string(to_string(k)) + " function");
  return *f;
}

const KernelConfig& config_of(const Function& f) {
  if (!f.config)
    fail("'" + f.name + "' has no kernel config");
  return *f.config;
}

void check_cbs(const Program& p) {
  std::int64_t total = 0;
  for (const CircularBuffer& c : p.cbs) {
    tt::CbRange r = tt::cb_range(c.role);
    if (c.index < 0 || c.index >= std::int64_t{tt::arch_of(p).num_circular_buffers} ||
        c.index < r.first || c.index > r.last)
      fail("circular buffer '" + c.name + "' (" + std::string(to_string(c.role)) + ") has index " +
           std::to_string(c.index) + ", outside " + std::to_string(r.first) + "-" +
           std::to_string(r.last));
    total += c.page_size * c.depth;
  }
  if (total > tt::l1_cb_budget(p))
    fail("the circular buffers of '" + p.name + "' use " + std::to_string(total) +
         " bytes of L1, over the " + std::to_string(tt::l1_cb_budget(p)) + " a core offers them");
}

// One side produces, the other consumes: push tree == wait tree over the CBs together; each side
// also reserves as it pushes and pops as it waits, CB by CB.
void check_pair(const Function& prod, const Function& cons, const std::set<std::string>& cbs) {
  if (cbs.empty())
    return;
  tt::EventTree pushes = tt::event_tree(prod, Intrinsic::cb_push_back, cbs);
  tt::EventTree waits = tt::event_tree(cons, Intrinsic::cb_wait_front, cbs);
  std::string list;
  for (const std::string& c : cbs)
    list += (list.empty() ? "" : ", ") + c;
  // A producer one step ahead (keep-rows' next row) pushes before the loop what the consumer
  // waits for after it.
  if (!(pushes == waits) && !(tt::one_ahead(pushes) == waits))
    fail("'" + prod.name + "' pushes and '" + cons.name + "' waits differ on " + list +
         ": pushes `" + print(pushes) + "`, waits `" + print(waits) + "`");
  for (const std::string& c : cbs) {
    tt::EventTree reserves = tt::event_tree(prod, Intrinsic::cb_reserve_back, {c});
    tt::EventTree pushed = tt::event_tree(prod, Intrinsic::cb_push_back, {c});
    if (!(reserves == pushed))
      fail("'" + prod.name + "' reserves and pushes differ on " + c + ": reserves `" +
           print(reserves) + "`, pushes `" + print(pushed) + "`");
    tt::EventTree waited = tt::event_tree(cons, Intrinsic::cb_wait_front, {c});
    tt::EventTree pops = tt::event_tree(cons, Intrinsic::cb_pop_front, {c});
    if (!(waited == pops))
      fail("'" + cons.name + "' waits and pops differ on " + c + ": waits `" + print(waited) +
           "`, pops `" + print(pops) + "`");
  }
}

// A CB compute both fills and drains (a blocked matmul's partial sums): it reserves as it pushes,
// pops as it waits, and pushes in total what it waits for in total. Its occupancy along the way
// (a whole block, pushed over one K step and drained over the next) is the host's block rule's to
// keep within the CB's depth (include/tilekit/matmul_blocks.hpp).
void check_self(const Function& f, const std::set<std::string>& cbs, bool totals) {
  for (const std::string& c : cbs) {
    auto tree = [&](Intrinsic fn) { return tt::event_tree(f, fn, {c}); };
    tt::EventTree reserves = tree(Intrinsic::cb_reserve_back),
                  pushes = tree(Intrinsic::cb_push_back);
    tt::EventTree waits = tree(Intrinsic::cb_wait_front), pops = tree(Intrinsic::cb_pop_front);
    if (!(reserves == pushes))
      fail("'" + f.name + "' reserves and pushes differ on " + c + ": reserves `" +
           print(reserves) + "`, pushes `" + print(pushes) + "`");
    if (!(waits == pops))
      fail("'" + f.name + "' waits and pops differ on " + c + ": waits `" + print(waits) +
           "`, pops `" + print(pops) + "`");
    if (totals && tt::total(pushes) != tt::total(waits))
      fail("'" + f.name + "' pushes `" + print(pushes) + "` into " + c + " but waits for `" +
           print(waits) + "`: not the same number of tiles");
  }
}

// tile_regs_acquire -> commit -> wait -> release, math in the first phase, packs in the last;
// `dst.assume_zero(k)` only on a slot nothing touched since the section's tile_regs_acquire; the
// packer's reduce mask (reduce_init to reduce_uninit) on for the packs of reductions and only
// for them; the packer's ReLU (pack_relu_config) on for the packs of the unclamped approximate
// exp's values and only for them, and nothing but a pack reading such a value in DST
// (guard-fast-exp).
class DstCheck {
public:
  DstCheck(const Function& f, std::int64_t cap, bool fp32) : f_(f), cap_(cap), fp32_(fp32) {}
  enum class Phase { idle, math, committed, pack };

  void walk(const Stmt& s, Phase& ph) {
    if (const Block* b = as<Block>(s)) {
      for (const Stmt& x : b->stmts)
        walk(x, ph);
      return;
    }
    if (const For* l = as<For>(s)) {
      Phase before = ph;
      State start = state(ph);
      walk(l->body, ph);
      // The body again, from the state the first pass left: what the next iteration finds (a
      // slot this one wrote, the init it ended with). A body that left the state as it found it
      // would only repeat the same walk: skipping it keeps nested loops from doubling the work
      // per level (40 nested loops took hours).
      if (ph == before && !(state(ph) == start))
        walk(l->body, ph);
      if (ph != before)
        fail("in '" + f_.name + "', the body of loop '" + l->var + "' starts " + name(before) +
             " but ends " + name(ph));
      return;
    }
    if (const IfThenElse* i = as<IfThenElse>(s)) { // both branches from here, to one phase
      Phase then_ph = ph, else_ph = ph;
      walk(i->then_case, then_ph);
      if (i->else_case)
        walk(i->else_case, else_ph);
      if (then_ph != else_ph)
        fail("in '" + f_.name + "', the branches of `if " + print(i->cond) + "` end " +
             name(then_ph) + " and " + name(else_ph));
      ph = then_ph;
      return;
    }
    const Evaluate* e = as<Evaluate>(s);
    const Call* c = e ? as<Call>(e->call) : nullptr;
    if (!c)
      return;
    auto step = [&](Phase from, Phase to) {
      if (ph != from)
        fail("in '" + f_.name + "', " + one_line(s) + " comes " + name(ph));
      ph = to;
    };
    switch (c->fn) {
    case Intrinsic::tile_regs_acquire:
      step(Phase::idle, Phase::math);
      touched_.clear();
      held_.clear();
      return;
    case Intrinsic::reduce_init:
      mask_ = dim_of(c->args[1]);
      return;
    case Intrinsic::reduce_uninit:
      mask_ = -1;
      return;
    case Intrinsic::pack_relu_on:
    case Intrinsic::pack_relu_off:
      relu_ = c->fn == Intrinsic::pack_relu_on;
      return;
    case Intrinsic::tile_regs_commit:
      step(Phase::math, Phase::committed);
      return;
    case Intrinsic::tile_regs_wait:
      step(Phase::committed, Phase::pack);
      return;
    case Intrinsic::tile_regs_release:
      step(Phase::pack, Phase::idle);
      return;
    default:
      break;
    }
    bool pack = c->fn == Intrinsic::pack_tile;
    std::vector<std::size_t> slots = pack ? std::vector<std::size_t>{0} : tt::dst_slot_args(c->fn);
    if (slots.empty())
      return;
    if (c->fn == Intrinsic::dst_assume_zero)
      if (const IntImm* k = as<IntImm>(c->args[0]); k && touched_.count(k->value))
        fail("in '" + f_.name + "', " + one_line(s) + " reads DST slot " +
             std::to_string(k->value) + " as zero, but `" + one_line(*touched_.at(k->value)) +
             "` used it earlier in the same section (DST is zero only where nothing wrote it "
             "since tile_regs_acquire)");
    for (std::size_t k : slots)
      if (const IntImm* i = as<IntImm>(c->args[k]); i && !touched_.count(i->value))
        touched_.emplace(i->value, &s); // the first use, printed only in a message
    if (pack) {
      check_mask(*c, s);
      check_relu(*c, s);
    } else {
      check_unclamped_read(*c, s);
      track(*c);
    }
    if (pack && ph != Phase::pack)
      fail("in '" + f_.name + "', " + one_line(s) + " reads DST " + name(ph) +
           ", not between tile_regs_wait and tile_regs_release");
    if (!pack && ph != Phase::math)
      fail("in '" + f_.name + "', " + one_line(s) + " writes DST " + name(ph) +
           ", not between tile_regs_acquire and tile_regs_commit");
    if (c->fn == Intrinsic::matmul_block) // writes rt_dim x ct_dim slots from idst
      block_footprint(*c, s);
    for (std::size_t k : slots) {
      const IntImm* i = as<IntImm>(c->args[k]);
      if (!i || i->value < 0 || i->value >= cap_)
        fail("in '" + f_.name + "', " + one_line(s) + " uses DST slot " + print(c->args[k]) +
             " but DST holds " + std::to_string(cap_) +
             " tiles (dst_fp32 = " + (fp32_ ? "true" : "false") + ")");
    }
  }

private:
  const Function& f_;
  std::int64_t cap_;
  bool fp32_;
  // What a slot holds in the current section: nothing written (zero), a value, a reduction along
  // an axis (only its row / column 0 defined), or a value computed in DST from a reduction.
  struct Held {
    enum Kind { zero, value, reduction, from_reduction } kind = zero;
    int dim = -1;           // reduction: its ReduceDim (0 row, 1 column)
    bool unclamped = false; // exp_tile.approx_noclamp's value: negative below -88
    friend bool operator==(const Held&, const Held&) = default;
  };
  std::map<std::int64_t, Held> held_;
  int mask_ = -1;     // the ReduceDim of the last reduce_init, until reduce_uninit
  bool relu_ = false; // the packer's ReLU, pack_relu_config.zero_relu until .no_relu

  static int dim_of(const Expr& e) {
    const EnumImm* d = as<EnumImm>(e);
    return d && d->value == EnumConst::reduce_row   ? 0
           : d && d->value == EnumConst::reduce_col ? 1
                                                    : 2;
  }
  static const char* axis(int dim) {
    return dim == 0 ? "column 0" : dim == 1 ? "row 0" : "element (0, 0)";
  }
  Held held(const Expr& slot) {
    const IntImm* i = as<IntImm>(slot);
    auto it = i ? held_.find(i->value) : held_.end();
    return it == held_.end() ? Held{} : it->second;
  }
  void set(const Expr& slot, Held h) {
    if (const IntImm* i = as<IntImm>(slot))
      held_[i->value] = h;
  }
  static bool reduced(Held h) {
    return h.kind == Held::reduction || h.kind == Held::from_reduction;
  }

  void track(const Call& c) {
    std::vector<std::size_t> slots = tt::dst_slot_args(c.fn);
    const Expr& out = c.args[slots.back()];
    Held before = held(out);
    switch (c.fn) {
    case Intrinsic::dst_assume_zero:
      return;
    case Intrinsic::reduce_tile: {
      int dim = dim_of(c.args[1]);
      bool fits = !reduced(before) || (before.kind == Held::reduction && before.dim == dim);
      set(out, fits ? Held{Held::reduction, dim} : Held{Held::from_reduction});
      return;
    }
    case Intrinsic::matmul_tiles: // accumulates
    case Intrinsic::matmul_tiles_bt:
    case Intrinsic::matmul_block:
      set(out, {reduced(before) ? Held::from_reduction : Held::value});
      return;
    default:
      break;
    }
    bool overwrites = c.fn == Intrinsic::fill_tile;
    for (ArgKind k : ir::info(c.fn).args)
      overwrites |= k == ArgKind::cb; // copy_tile, the FPU and broadcast ops
    bool from_reduction = false;
    if (!overwrites) // SFPU, in place or on two slots
      for (std::size_t k : slots)
        from_reduction |= reduced(held(c.args[k]));
    set(out, {from_reduction ? Held::from_reduction : Held::value, -1,
              c.fn == Intrinsic::exp_tile_approx_noclamp ||
                  c.fn == Intrinsic::exp_tile_approx_noclamp_scaled});
  }

  // An operation reading the unclamped exp's value in DST would see its negative values below
  // -88 (the packer's ReLU zeroes them only on the way to L1).
  void check_unclamped_read(const Call& c, const Stmt& s) {
    const std::vector<std::size_t> slots = tt::dst_slot_args(c.fn);
    bool overwrites = c.fn == Intrinsic::fill_tile || c.fn == Intrinsic::dst_assume_zero;
    for (ArgKind k : ir::info(c.fn).args)
      overwrites |= k == ArgKind::cb;
    overwrites &= c.fn != Intrinsic::matmul_tiles && c.fn != Intrinsic::matmul_tiles_bt &&
                  c.fn != Intrinsic::matmul_block && c.fn != Intrinsic::reduce_tile; // accumulate
    for (std::size_t n = 0; n < slots.size(); ++n) {
      const bool out = n + 1 == slots.size();
      if (held(c.args[slots[n]]).unclamped && !(out && overwrites))
        fail("in '" + f_.name + "', " + one_line(s) + " reads DST slot " + print(c.args[slots[n]]) +
             " holding the unclamped approximate exp's value, negative below -88 until the "
             "packer's ReLU writes it");
    }
  }

  void check_relu(const Call& c, const Stmt& s) {
    const bool unclamped = held(c.args[0]).unclamped;
    if (unclamped && !relu_)
      fail("in '" + f_.name + "', " + one_line(s) +
           " packs the unclamped approximate exp's value without the packer's ReLU "
           "(pack_relu_config(ReluType::ZERO_RELU))");
    if (!unclamped && relu_)
      fail("in '" + f_.name + "', " + one_line(s) +
           " packs a value with the packer's ReLU on, which only the unclamped exp's may have");
  }

  void block_footprint(const Call& c, const Stmt& s) {
    const IntImm* idst = as<IntImm>(c.args[4]);
    const IntImm* ct = as<IntImm>(c.args[6]);
    const IntImm* rt = as<IntImm>(c.args[7]);
    if (!idst || !ct || !rt || idst->value + ct->value * rt->value > cap_)
      fail("in '" + f_.name + "', " + one_line(s) + " writes DST slots past the " +
           std::to_string(cap_) + " DST holds (dst_fp32 = " + (fp32_ ? "true" : "false") + ")");
    for (std::int64_t k = idst->value; k < idst->value + ct->value * rt->value; ++k) {
      if (!touched_.count(k))
        touched_.emplace(k, &s);
      held_[k] = {Held::value};
    }
  }

  void check_mask(const Call& c, const Stmt& s) {
    Held h = held(c.args[0]);
    // Printed only for a message: every pack passes here.
    auto at = [&] { return "in '" + f_.name + "', " + one_line(s); };
    if (h.kind == Held::from_reduction)
      fail(at() + " packs a value computed in DST from a reduction, which is defined only in its " +
           "row or column 0 on the device; pack the reduction under its mask first");
    if (mask_ >= 0 && h.kind == Held::value)
      fail(at() + " packs a value that is not a reduction while reduce_init's packer mask keeps " +
           "only its " + axis(mask_) + " (reduce_uninit clears the mask)");
    if (mask_ >= 0 && h.kind == Held::reduction && h.dim != mask_)
      fail(at() + " packs a reduction defined in its " + axis(h.dim) +
           " while reduce_init's packer mask keeps only its " + axis(mask_));
    if (mask_ < 0 && h.kind == Held::reduction)
      fail(at() + " packs a reduction without reduce_init's packer mask: off its " + axis(h.dim) +
           " DST holds no defined value on the device");
  }
  // Slot -> the first statement of the current section that used it (a statement of the
  // function's body, which outlives the check).
  std::map<std::int64_t, const Stmt*> touched_;

  // Everything a walk depends on besides the statements.
  struct State {
    Phase ph;
    std::map<std::int64_t, const Stmt*> touched;
    std::map<std::int64_t, Held> held;
    int mask;
    bool relu;
    // The first uses compare by their text (what a message would print), as when they were kept
    // printed: two statements that print alike leave the same state.
    friend bool operator==(const State& a, const State& b) {
      return a.ph == b.ph && a.held == b.held && a.mask == b.mask && a.relu == b.relu &&
             std::equal(a.touched.begin(), a.touched.end(), b.touched.begin(), b.touched.end(),
                        [](const auto& x, const auto& y) {
                          return x.first == y.first && (x.second == y.second ||
                                                        one_line(*x.second) == one_line(*y.second));
                        });
    }
  };
  State state(Phase ph) const { return {ph, touched_, held_, mask_, relu_}; }
  static std::string name(Phase p) {
    switch (p) {
    case Phase::idle:
      return "outside any DST section";
    case Phase::math:
      return "after tile_regs_acquire";
    case Phase::committed:
      return "after tile_regs_commit";
    case Phase::pack:
      return "after tile_regs_wait";
    }
    return "";
  }
};

// The kernel's runtime args against its body and the host plan; its accessors against its
// compile args: the first bound at the first compile arg's offset, each next chained after the
// previous one, every offset where the previous accessor's words end.
void check_args(const Program& p, const Function& f, const std::set<std::string>& host_names) {
  const KernelConfig& c = config_of(f);
  const std::vector<std::string>& rt = c.runtime_args;
  for (std::size_t k = 0; k < rt.size(); ++k)
    if (!host_names.count(rt[k]))
      fail("runtime arg " + std::to_string(k) + " '" + rt[k] + "' of '" + f.name +
           "' is never set by the host plan");
  for (const std::string& v : c.compile_values)
    if (!host_names.count(v))
      fail("compile-time value '" + v + "' of '" + f.name + "' is never set by the host plan");
  if (f.kind == FuncKind::compute ? !c.compute : !c.data_movement)
    fail("'" + f.name + "' has no " +
         (f.kind == FuncKind::compute ? "compute config" : "data-movement config"));
  struct Reads : Visitor {
    std::vector<const Decl*> lets;
    std::vector<const Call*> accessors;
    void visit_node(const Decl& d) override {
      lets.push_back(&d);
      Visitor::visit_node(d);
    }
    void visit_node(const Call& c) override {
      if (c.fn == Intrinsic::tensor_accessor || c.fn == Intrinsic::tensor_accessor_chained)
        accessors.push_back(&c);
      Visitor::visit_node(c);
    }
  } r;
  r.visit(f.body);
  for (const Decl* d : r.lets) {
    const Call* call = as<Call>(d->value);
    if (!call || call->fn != Intrinsic::get_arg_val)
      continue;
    std::int64_t n = as<IntImm>(call->args[0])->value;
    if (n < 0 || n >= static_cast<std::int64_t>(rt.size()))
      fail("'" + f.name + "' reads runtime arg " + std::to_string(n) + ", but the host plan sets " +
           std::to_string(rt.size()) + " (runtime_args)");
    if (rt[static_cast<std::size_t>(n)] != d->name)
      fail("'" + f.name + "' reads runtime arg " + std::to_string(n) + " as '" + d->name +
           "', but the host plan sets it to '" + rt[static_cast<std::size_t>(n)] + "'");
  }
  // A compile-time value (fold-scale-args) is read at its word after the accessors', by its name.
  std::int64_t accessor_words = 0;
  for (const CompileArg& a : c.compile_args)
    if (const Accessor* acc = p.find_accessor(a.tensor))
      accessor_words += acc->arg_count();
  for (const Decl* d : r.lets) {
    const Call* call = as<Call>(d->value);
    if (!call || call->fn != Intrinsic::get_compile_time_arg_val)
      continue;
    const std::int64_t k = as<IntImm>(call->args[0])->value - accessor_words;
    if (k < 0 || k >= static_cast<std::int64_t>(c.compile_values.size()) ||
        c.compile_values[static_cast<std::size_t>(k)] != d->name)
      fail("'" + f.name + "' reads compile-time arg " + print(call->args[0]) + " as '" + d->name +
           "', which its compile_values do not put there");
  }
  const std::vector<CompileArg>& ct = c.compile_args;
  if (r.accessors.size() != ct.size())
    fail("'" + f.name + "' binds " + std::to_string(r.accessors.size()) +
         " tensor accessors but its compile_args list " + std::to_string(ct.size()));
  std::int64_t next = 0;
  for (std::size_t k = 0; k < ct.size(); ++k) {
    const Call* a = r.accessors[k];
    const std::string& t = as<Ref>(a->args[0])->name;
    if (t != ct[k].tensor)
      fail("'" + f.name + "' binds accessor " + std::to_string(k) + " to '" + t +
           "', but compile_args has '" + ct[k].tensor + "' there");
    if (ct[k].offset != next)
      fail("compile_args of '" + f.name + "' puts '" + t + "' at " + std::to_string(ct[k].offset) +
           ", but the words before it end at " + std::to_string(next));
    if (k == 0) {
      if (a->fn != Intrinsic::tensor_accessor)
        fail("'" + f.name + "' chains its first accessor ('" + t + "') after another one");
      const IntImm* off = as<IntImm>(a->args[1]);
      if (!off || off->value != ct[k].offset)
        fail("'" + f.name + "' binds the accessor of '" + t + "' at compile-time offset " +
             print(a->args[1]) + ", but compile_args puts it at " + std::to_string(ct[k].offset));
    } else {
      if (a->fn != Intrinsic::tensor_accessor_chained)
        fail("'" + f.name + "' binds the accessor of '" + t +
             "' at a fixed offset, not chained after '" + ct[k - 1].tensor + "'");
      const std::string& after = as<Ref>(a->args[1])->name;
      if (after != ct[k - 1].tensor)
        fail("'" + f.name + "' chains the accessor of '" + t + "' after '" + after +
             "', but compile_args has '" + ct[k - 1].tensor + "' before it");
    }
    const Accessor* words = p.find_accessor(t);
    if (!words)
      fail("'" + f.name + "' binds the accessor of '" + t + "', which has no compile-time args");
    next = ct[k].offset + words->arg_count();
  }
}

// Every value the host plan sets: the host function's parameters and lets, the per-core values
// and the buffer addresses; and the plan is complete (every buffer sized, the three kernels
// launched).
std::set<std::string> host_names(const Program& p, const Function& host) {
  if (!p.host_plan)
    fail("program '" + p.name + "' has no host plan");
  const HostPlan& plan = *p.host_plan;
  std::set<std::string> out;
  for (const Param& q : host.params)
    out.insert(q.name);
  for (const Stmt& s : as<Block>(host.body)->stmts)
    if (const Decl* d = as<Decl>(s))
      out.insert(d->name);
  if (plan.per_core) {
    out.insert(plan.per_core->start);
    out.insert(plan.per_core->count);
  } else if (const auto& g = plan.core_grid) {
    for (const std::string& n : {g->x, g->y, g->cols, g->rows})
      out.insert(n);
  } else {
    fail("the host plan of '" + p.name + "' sets no per-core values");
  }
  for (const Function& f : p.functions)
    if (f.kind == FuncKind::host_core)
      for (const Stmt& s : as<Block>(f.body)->stmts)
        if (const Decl* d = as<Decl>(s))
          out.insert(d->name);
  out.insert(plan.semaphores.begin(), plan.semaphores.end());
  if (plan.buffers.size() != p.tensors.size())
    fail("the host plan of '" + p.name + "' has " + std::to_string(plan.buffers.size()) +
         " buffers for " + std::to_string(p.tensors.size()) + " tensors");
  for (const HostBuffer& b : plan.buffers) {
    if (b.size.empty() || b.page_size <= 0)
      fail("the host plan's buffer of '" + b.tensor + "' has no size or page");
    out.insert(b.address);
  }
  std::multiset<FuncKind> launched;
  for (const std::string& k : plan.kernels)
    for (const Function& f : p.functions)
      if (f.name == k)
        launched.insert(f.kind);
  for (FuncKind k : {FuncKind::reader, FuncKind::compute, FuncKind::writer})
    if (launched.count(k) != 1 || plan.kernels.size() != 3)
      fail("the host plan of '" + p.name + "' does not launch one reader, compute and writer");
  return out;
}

// A CB unpacked with UnpackToDestFp32 holds Float32 tiles for an fp32 DST and feeds copy_tile
// only: the unpacker cannot send it to SrcA/SrcB.
void check_unpack_to_dest(const Program& p, const Function& compute) {
  const KernelConfig& c = config_of(compute);
  if (!c.compute)
    return;
  const tt::UnpackedCbs u = tt::unpacked_cbs(compute);
  for (const std::string& name : c.compute->unpack_to_dest_fp32) {
    const CircularBuffer* cb = p.find_cb(name);
    std::string at = "in '" + compute.name + "', unpack_to_dest_fp32 lists '" + name + "'";
    if (!cb)
      fail(at + ", which is not a CB of the program");
    if (cb->format != DataFormat::Float32)
      fail(at + ", whose format is " + std::string(to_string(cb->format)) + ", not Float32");
    if (!c.compute->fp32_dest_acc_en)
      fail(at + " while fp32_dest_acc_en is false");
    if (u.to_src.count(name))
      fail(at + ", which an FPU, matmul, broadcast or reduce call also reads through SrcA/SrcB");
  }
}

void check_program(const Program& p) {
  check_cbs(p);
  const Function& reader = kernel(p, FuncKind::reader);
  const Function& compute = kernel(p, FuncKind::compute);
  const Function& writer = kernel(p, FuncKind::writer);
  const Function& host = kernel(p, FuncKind::host);
  // reader -> compute, writer -> compute (the input CBs it reads into), compute -> writer,
  // compute -> reader (the output CBs it writes from), compute -> compute (partial sums, rows of
  // tiles)
  std::set<std::string> in, in_writer, out, out_reader, partials, rows;
  for (const CircularBuffer& c : p.cbs)
    if (c.role == CBRole::output)
      (c.reader_writes_for.empty() ? out : out_reader).insert(c.name);
    else if (c.role == CBRole::partials || c.role == CBRole::row)
      (c.role == CBRole::row ? rows : partials).insert(c.name);
    else if (c.role != CBRole::intermediate)
      (c.read_by_writer ? in_writer : in).insert(c.name);
  check_pair(reader, compute, in);
  check_pair(writer, compute, in_writer);
  check_pair(compute, writer, out);
  check_pair(compute, reader, out_reader);
  check_self(compute, partials, /*totals=*/true);
  // A row's loops may be split (keep-rows' 0 .. row_kept and row_kept .. +Nt - row_kept), whose
  // totals differ in form from the Nt of the loops that are not: ttgen check proves them.
  check_self(compute, rows, /*totals=*/false);
  if (auto err = tt::check_occupancy(p, compute))
    fail("in '" + compute.name + "', " + *err);
  bool fp32 = tt::dst_fp32(p);
  DstCheck dst(compute, tt::dst_capacity(p, fp32), fp32);
  DstCheck::Phase ph = DstCheck::Phase::idle;
  dst.walk(compute.body, ph);
  if (ph != DstCheck::Phase::idle)
    fail("in '" + compute.name + "', a DST section is never released");
  std::set<std::string> set = host_names(p, host);
  for (const Function* f : {&reader, &compute, &writer})
    check_args(p, *f, set);
  check_unpack_to_dest(p, compute);
}

} // namespace

ir::Module verify_kernels(const ir::Module& m, Diagnostics&) {
  try {
    for (const Program& p : m.programs)
      check_program(p);
  } catch (const Failure& f) {
    throw InternalError("internal error: " + f.what + " after verify-kernels", print(m));
  }
  return m;
}

} // namespace tk::lower
