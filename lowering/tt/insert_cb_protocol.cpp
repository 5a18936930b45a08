#include "lowering/tt/insert_cb_protocol.hpp"

#include "lowering/ir/equal.hpp"
#include "lowering/ir/visitor.hpp"

namespace tk::lower {

namespace {

using namespace tk::ir;

// One df.read_tile or df.write_tile and where it came from.
struct Transfer {
  const Call* call;
  SourceRange at;
};

class Protocol : public Mutator {
protected:
  // Consecutive reads (or writes) of distinct CBs share one barrier.
  Stmt mutate_node(const Block& n, const Stmt&) override {
    std::vector<Stmt> out;
    std::vector<Transfer> group;
    for (const Stmt& s : n.stmts) {
      const Evaluate* e = as<Evaluate>(s);
      const Call* c = e != nullptr ? as<Call>(e->call) : nullptr;
      if (c != nullptr && (c->fn == Intrinsic::df_read_tile || c->fn == Intrinsic::df_write_tile)) {
        if (!group.empty() && !joins(group, c))
          out.push_back(expand(group));
        group.push_back({c, e->loc.range});
        continue;
      }
      if (!group.empty())
        out.push_back(expand(group));
      out.push_back(mutate(s));
    }
    if (!group.empty())
      out.push_back(expand(group));
    return block(std::move(out));
  }

  Stmt mutate_node(const Evaluate& e, const Stmt& self) override {
    const Call* c = as<Call>(e.call);
    SourceRange at = e.loc.range;
    switch (c->fn) {
    case Intrinsic::df_read_tile:
    case Intrinsic::df_write_tile: {
      std::vector<Transfer> one{{c, at}};
      return expand(one);
    }
    case Intrinsic::df_scaler_tile: {
      const Expr& cb = c->args[0];
      return block({evaluate(call(Intrinsic::cb_reserve_back, {cb, int_imm(1)}), at),
                    evaluate(call(Intrinsic::fill_scaler_tile,
                                  {call(Intrinsic::get_write_ptr, {cb}), c->args[1]}),
                             at),
                    evaluate(call(Intrinsic::cb_push_back, {cb, int_imm(1)}), at)});
    }
    case Intrinsic::df_tril_tile:
    case Intrinsic::df_triu_tile: { // generated in place: reserve, fill, push
      const Expr& cb = c->args[0];
      Intrinsic fill =
          c->fn == Intrinsic::df_tril_tile ? Intrinsic::fill_tril_tile : Intrinsic::fill_triu_tile;
      return block(
          {evaluate(call(Intrinsic::cb_reserve_back, {cb, int_imm(1)}), at),
           evaluate(call(fill, {c->args[1], call(Intrinsic::get_write_ptr, {cb}), c->args[2]}), at),
           evaluate(call(Intrinsic::cb_push_back, {cb, int_imm(1)}), at)});
    }
    default:
      return self; // the block factory splices the expansions into their block
    }
  }

private:
  static bool joins(const std::vector<Transfer>& group, const Call* c) {
    if (c->fn != group.front().call->fn)
      return false;
    for (const Transfer& t : group) {
      if (equal(t.call->args[0], c->args[0]))
        return false; // a second page of the same CB: its own window
    }
    return true;
  }

  // Reads: every reserve, every read, one barrier, every push. Writes: every wait, every write,
  // one barrier, every pop. Clears `group`.
  static Stmt expand(std::vector<Transfer>& group) {
    const bool read = group.front().call->fn == Intrinsic::df_read_tile;
    std::vector<Stmt> open, move, close;
    for (const Transfer& t : group) {
      const Expr& cb = t.call->args[0];
      open.push_back(evaluate(
          call(read ? Intrinsic::cb_reserve_back : Intrinsic::cb_wait_front, {cb, int_imm(1)}),
          t.at));
      move.push_back(
          evaluate(call(read ? Intrinsic::noc_async_read_page : Intrinsic::noc_async_write_page,
                        {t.call->args[2], t.call->args[1],
                         call(read ? Intrinsic::get_write_ptr : Intrinsic::get_read_ptr, {cb})}),
                   t.at));
      close.push_back(evaluate(
          call(read ? Intrinsic::cb_push_back : Intrinsic::cb_pop_front, {cb, int_imm(1)}), t.at));
    }
    move.push_back(evaluate(
        call(read ? Intrinsic::noc_async_read_barrier : Intrinsic::noc_async_write_barrier, {}),
        group.back().at));
    group.clear();
    open.insert(open.end(), move.begin(), move.end());
    open.insert(open.end(), close.begin(), close.end());
    return block(std::move(open));
  }
};

} // namespace

ir::Module insert_cb_protocol(const ir::Module& m, Diagnostics&) {
  Protocol p;
  return p.mutate(m);
}

} // namespace tk::lower
