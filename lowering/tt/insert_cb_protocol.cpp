#include "lowering/tt/insert_cb_protocol.hpp"

#include "lowering/ir/visitor.hpp"

namespace tk::lower {

namespace {

using namespace tk::ir;

class Protocol : public Mutator {
protected:
  Stmt mutate_node(const Evaluate& e, const Stmt& self) override {
    const Call* c = as<Call>(e.call);
    SourceRange at = e.loc.range;
    auto stmt = [&](Intrinsic fn, std::vector<Expr> args) {
      return evaluate(call(fn, std::move(args)), at);
    };
    const Expr one = int_imm(1);
    switch (c->fn) {
    case Intrinsic::df_read_tile: {
      const Expr& cb = c->args[0];
      return block({stmt(Intrinsic::cb_reserve_back, {cb, one}),
                    stmt(Intrinsic::noc_async_read_tile,
                         {c->args[2], c->args[1], call(Intrinsic::get_write_ptr, {cb})}),
                    stmt(Intrinsic::noc_async_read_barrier, {}),
                    stmt(Intrinsic::cb_push_back, {cb, one})});
    }
    case Intrinsic::df_scaler_tile: {
      const Expr& cb = c->args[0];
      return block(
          {stmt(Intrinsic::cb_reserve_back, {cb, one}),
           stmt(Intrinsic::fill_scaler_tile, {call(Intrinsic::get_write_ptr, {cb}), c->args[1]}),
           stmt(Intrinsic::cb_push_back, {cb, one})});
    }
    case Intrinsic::df_write_tile: {
      const Expr& cb = c->args[0];
      return block({stmt(Intrinsic::cb_wait_front, {cb, one}),
                    stmt(Intrinsic::noc_async_write_tile,
                         {c->args[2], c->args[1], call(Intrinsic::get_read_ptr, {cb})}),
                    stmt(Intrinsic::noc_async_write_barrier, {}),
                    stmt(Intrinsic::cb_pop_front, {cb, one})});
    }
    default:
      return self; // the block factory splices the expansions into their block
    }
  }
};

} // namespace

ir::Module insert_cb_protocol(const ir::Module& m, Diagnostics&) {
  Protocol p;
  return p.mutate(m);
}

} // namespace tk::lower
