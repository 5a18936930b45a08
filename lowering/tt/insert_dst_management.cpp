#include "lowering/tt/insert_dst_management.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

#include <map>
#include <set>

namespace tk::lower {

namespace {

using namespace tk::ir;

bool is_pack(Intrinsic fn) {
  return fn == Intrinsic::pack_tile;
}

// pack_config: the packer's format (pack_reconfig_data_format), a call of the pack thread that
// leaves the section as it is: between two packs into CBs of different formats it must not end
// the section, whose other tiles would be lost with it.
enum class Kind { math, pack, pack_config, loop_with_packs, other };

const Expr& pack_cb(const Stmt& s) {
  return as<Call>(as<Evaluate>(s)->call)->args[1];
}

Kind classify(const Stmt& s) {
  bool packs = ir::any_call(s, is_pack);
  if (as<For>(s) || as<IfThenElse>(s))
    return packs                             ? Kind::loop_with_packs
           : ir::any_call(s, tt::writes_dst) ? Kind::math
                                             : Kind::other;
  if (packs)
    return Kind::pack;
  if (const Evaluate* e = as<Evaluate>(s))
    if (const Call* c = as<Call>(e->call); c && c->fn == Intrinsic::pack_reconfig_data_format)
      return Kind::pack_config;
  return ir::any_call(s, tt::writes_dst) ? Kind::math : Kind::other;
}

class Sections {
public:
  Sections(const Program& p, const Function& f, std::int64_t capacity)
      : capacity_(capacity), fn_(f.name) {
    // An output the writer drains takes a run of n packs in one reservation only when every run
    // into it is of n pages and n divides its depth (a blocked matmul's sub-blocks): its write
    // pointer then stays at a multiple of n. Runs of several sizes (batch-sections' batches and
    // the tiles left after them) could start a reservation at the CB's last page and run past
    // its end; there each pack reserves and pushes its own page, in the same section.
    std::map<std::string, std::set<std::size_t>> runs;
    collect_runs(f.body, runs);
    for (const CircularBuffer& c : p.cbs) {
      const auto r = runs.find(c.name);
      if (c.role == CBRole::output && r != runs.end() &&
          (r->second.size() != 1 || c.depth % static_cast<std::int64_t>(*r->second.begin()) != 0))
        single_pages_.insert(c.name);
    }
  }

  Stmt walk(const Stmt& s) {
    enum class State { idle, math, packing } st = State::idle;
    std::vector<Stmt> out;
    auto regs = [&](Intrinsic fn) { out.push_back(evaluate(call(fn, {}))); };
    const std::vector<Stmt>& stmts = as<Block>(s)->stmts;
    for (std::size_t i = 0; i < stmts.size(); ++i) {
      const Stmt& x = stmts[i];
      check_slots(x);
      switch (classify(x)) {
      case Kind::math:
        if (st == State::packing)
          regs(Intrinsic::tile_regs_release);
        if (st != State::math)
          regs(Intrinsic::tile_regs_acquire);
        st = State::math;
        out.push_back(x);
        break;
      case Kind::pack: {
        if (st == State::idle) // a section with nothing computed: a zero tile
          regs(Intrinsic::tile_regs_acquire);
        if (st != State::packing) {
          regs(Intrinsic::tile_regs_commit);
          regs(Intrinsic::tile_regs_wait);
        }
        st = State::packing;
        // Consecutive packs into one CB fill one reservation, as the SDK's kernels pack a
        // sub-block: the packer writes the reserved pages in order (but see single_pages_).
        const Expr& cb = pack_cb(x);
        std::size_t n = 1;
        while (!single_pages_.count(as<Ref>(cb)->name) && i + n < stmts.size() &&
               classify(stmts[i + n]) == Kind::pack &&
               as<Ref>(pack_cb(stmts[i + n]))->name == as<Ref>(cb)->name)
          ++n;
        const auto pages = static_cast<std::int64_t>(n);
        out.push_back(
            evaluate(call(Intrinsic::cb_reserve_back, {cb, int_imm(pages)}), x->loc.range));
        for (std::size_t k = 0; k < n; ++k) {
          if (k > 0) // the first was checked with every statement
            check_slots(stmts[i + k]);
          out.push_back(stmts[i + k]);
        }
        out.push_back(evaluate(call(Intrinsic::cb_push_back, {cb, int_imm(pages)}), x->loc.range));
        i += n - 1;
        break;
      }
      case Kind::loop_with_packs: {
        if (st == State::math)
          throw InternalError("internal error: insert-dst-management: in '" + fn_ +
                              "', a DST section is still open at a loop that packs: " + print(x));
        if (st == State::packing)
          regs(Intrinsic::tile_regs_release);
        st = State::idle;
        const For* f = as<For>(x);
        if (!f)
          throw InternalError("internal error: insert-dst-management: packs under an if");
        out.push_back(for_loop(f->var, f->min, f->extent, f->role, walk(f->body), f->loc.range));
        break;
      }
      case Kind::pack_config:
        out.push_back(x);
        break;
      case Kind::other:
        if (st == State::packing) {
          regs(Intrinsic::tile_regs_release);
          st = State::idle;
        }
        out.push_back(x);
        break;
      }
    }
    if (st == State::math)
      throw InternalError("internal error: insert-dst-management: in '" + fn_ +
                          "', a DST section computes without packing");
    if (st == State::packing)
      regs(Intrinsic::tile_regs_release);
    return block(std::move(out));
  }

private:
  std::int64_t capacity_;
  std::string fn_;
  std::set<std::string> single_pages_; // outputs whose packs each reserve their own page

  // The sizes of the runs of consecutive packs into each CB, in every block of s.
  static void collect_runs(const Stmt& s, std::map<std::string, std::set<std::size_t>>& runs) {
    if (const For* f = as<For>(s)) {
      collect_runs(f->body, runs);
      return;
    }
    if (const IfThenElse* i = as<IfThenElse>(s)) {
      collect_runs(i->then_case, runs);
      if (i->else_case)
        collect_runs(i->else_case, runs);
      return;
    }
    const Block* b = as<Block>(s);
    if (!b)
      return;
    for (std::size_t i = 0; i < b->stmts.size(); ++i) {
      if (classify(b->stmts[i]) != Kind::pack) {
        collect_runs(b->stmts[i], runs);
        continue;
      }
      const std::string cb = as<Ref>(pack_cb(b->stmts[i]))->name;
      std::size_t n = 1;
      while (i + n < b->stmts.size() && classify(b->stmts[i + n]) == Kind::pack &&
             as<Ref>(pack_cb(b->stmts[i + n]))->name == cb)
        ++n;
      runs[cb].insert(n);
      i += n - 1;
    }
  }

  void check_slots(const Stmt& s) {
    struct Slots : Visitor {
      std::int64_t cap;
      const std::string& fn;
      Slots(std::int64_t c, const std::string& f) : cap(c), fn(f) {}
      void visit_node(const Call& c) override {
        std::vector<std::size_t> slots = tt::dst_slot_args(c.fn);
        if (c.fn == Intrinsic::pack_tile)
          slots = {0};
        for (std::size_t k : slots) {
          const IntImm* i = as<IntImm>(c.args[k]);
          if (!i || i->value < 0 || i->value >= cap)
            throw InternalError("internal error: insert-dst-management: in '" + fn + "', " +
                                print(evaluate(call(c.fn, c.args))) + " uses DST slot " +
                                print(c.args[k]) + " but DST holds " + std::to_string(cap) +
                                " tiles");
        }
      }
    } v{capacity_, fn_};
    v.visit(s);
  }
};

// The CB of `cb_wait_front(cb, n)` when cb is one of `own`, else empty.
std::string own_wait(const Stmt& s, const std::set<std::string>& own) {
  const Evaluate* e = as<Evaluate>(s);
  const Call* c = e ? as<Call>(e->call) : nullptr;
  if (!c || c->fn != Intrinsic::cb_wait_front)
    return {};
  const std::string& cb = as<Ref>(c->args[0])->name;
  return own.count(cb) ? cb : std::string();
}

// Whether `s` names the CB `cb` anywhere (a call's CB argument).
bool mentions_cb(const Stmt& s, const std::string& cb) {
  struct Find : Visitor {
    const std::string& cb;
    bool found = false;
    explicit Find(const std::string& c) : cb(c) {}
    void visit_node(const Ref& r) override { found = found || r.name == cb; }
  } f{cb};
  f.visit(s);
  return f.found;
}

// A wait for a tile the compute kernel packed itself (an intermediate CB) goes down its block to
// the first statement that mentions the CB (its first read, a pop, the next pack into it), or to
// the block's end: the math thread runs the statements between, which do not touch that CB, while
// the packer packs the tile, instead of stalling until it is pushed (FlashAttention's key step:
// c's pack overlaps p's section, p's the first half of l's). A wait never enters or leaves a loop
// or a branch, so it runs as often as before, and it stays before every statement that reads,
// pops or fills its CB; only when the math thread may stall changes.
Stmt sink_own_waits(const Stmt& s, const std::set<std::string>& own) {
  if (const For* f = as<For>(s))
    return for_loop(f->var, f->min, f->extent, f->role, sink_own_waits(f->body, own), f->loc.range);
  if (const IfThenElse* i = as<IfThenElse>(s))
    return if_then_else(i->cond, sink_own_waits(i->then_case, own),
                        i->else_case ? sink_own_waits(i->else_case, own) : nullptr, i->loc.range);
  const Block* b = as<Block>(s);
  if (!b)
    return s;
  std::vector<Stmt> out;
  std::vector<std::pair<std::string, Stmt>> pending;
  for (const Stmt& x : b->stmts) {
    if (std::string cb = own_wait(x, own); !cb.empty()) {
      pending.emplace_back(std::move(cb), x);
      continue;
    }
    for (auto it = pending.begin(); it != pending.end();)
      if (mentions_cb(x, it->first)) {
        out.push_back(it->second);
        it = pending.erase(it);
      } else {
        ++it;
      }
    out.push_back(sink_own_waits(x, own));
  }
  for (auto& w : pending)
    out.push_back(w.second);
  return block(std::move(out));
}

} // namespace

ir::Module insert_dst_management(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    std::set<std::string> own;
    for (const CircularBuffer& c : p.cbs)
      if (c.role == CBRole::intermediate)
        own.insert(c.name);
    for (Function& f : p.functions)
      if (f.kind == FuncKind::compute) {
        Sections s(p, f, tt::dst_capacity(p, tt::dst_fp32(p)));
        f.body = sink_own_waits(s.walk(f.body), own);
      }
  }
  return out;
}

} // namespace tk::lower
