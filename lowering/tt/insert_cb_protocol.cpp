#include "lowering/tt/insert_cb_protocol.hpp"

#include "lowering/ir/equal.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"

namespace tk::lower {

namespace {

using namespace tk::ir;

bool is_read(Intrinsic fn) {
  return fn == Intrinsic::df_read_tile || fn == Intrinsic::df_read_block;
}
bool is_transfer(Intrinsic fn) {
  return is_read(fn) || fn == Intrinsic::df_write_tile || fn == Intrinsic::df_write_block;
}
bool is_block(Intrinsic fn) {
  return fn == Intrinsic::df_read_block || fn == Intrinsic::df_write_block;
}

// One df.read_tile, df.write_tile, df.read_block or df.write_block and where it came from.
struct Transfer {
  const Call* call;
  SourceRange at;
};

class Protocol : public Mutator {
public:
  explicit Protocol(ir::NameSet& names) : names_(names) {}

protected:
  // Consecutive reads (or writes) of distinct CBs share one barrier.
  Stmt mutate_node(const Block& n, const Stmt&) override {
    std::vector<Stmt> out;
    std::vector<Transfer> group;
    for (const Stmt& s : n.stmts) {
      const Evaluate* e = as<Evaluate>(s);
      const Call* c = e != nullptr ? as<Call>(e->call) : nullptr;
      if (c != nullptr && is_transfer(c->fn)) {
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
    case Intrinsic::df_write_tile:
    case Intrinsic::df_read_block:
    case Intrinsic::df_write_block: {
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
  ir::NameSet& names_;

  static bool joins(const std::vector<Transfer>& group, const Call* c) {
    if (is_read(c->fn) != is_read(group.front().call->fn))
      return false;
    for (const Transfer& t : group) {
      if (equal(t.call->args[0], c->args[0]))
        return false; // a second page of the same CB: its own window
    }
    return true;
  }

  // Reads: every reserve, every read, one barrier, every push. Writes: every wait, every write,
  // one barrier, every pop. A block reserves (waits for) its window at once and moves the valid
  // pages, page (r, c) of the block at `first + r * stride + c` of the tensor and at page
  // `r * cols + c` of the window. Clears `group`.
  Stmt expand(std::vector<Transfer>& group) {
    const bool read = is_read(group.front().call->fn);
    std::vector<Stmt> open, move, close;
    for (const Transfer& t : group) {
      const std::vector<Expr>& a = t.call->args;
      const Expr& cb = a[0];
      Expr pages = is_block(t.call->fn) ? a[8] : int_imm(1);
      open.push_back(evaluate(
          call(read ? Intrinsic::cb_reserve_back : Intrinsic::cb_wait_front, {cb, pages}), t.at));
      Expr window = call(read ? Intrinsic::get_write_ptr : Intrinsic::get_read_ptr, {cb});
      Intrinsic noc = read ? Intrinsic::noc_async_read_page : Intrinsic::noc_async_write_page;
      if (!is_block(t.call->fn)) {
        move.push_back(evaluate(call(noc, {a[2], a[1], window}), t.at));
      } else {
        const std::string& name = as<Ref>(cb)->name;
        std::string r = names_.fresh(name + "_r"), c = names_.fresh(name + "_c");
        Expr rv = var(r, Type::i32()), cv = var(c, Type::i32());
        Expr l1 = window + (rv * a[4] + cv) * call(Intrinsic::get_tile_size, {cb});
        Stmt one = evaluate(call(noc, {a[2] + rv * a[5] + cv, a[1], l1}), t.at);
        move.push_back(for_loop(
            r, int_imm(0), a[6], ForRole::serial,
            block({for_loop(c, int_imm(0), a[7], ForRole::serial, block({one}), t.at)}), t.at));
      }
      close.push_back(evaluate(
          call(read ? Intrinsic::cb_push_back : Intrinsic::cb_pop_front, {cb, pages}), t.at));
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
  ir::Module out = m;
  for (Program& p : out.programs) {
    ir::NameSet names(p);
    for (Function& f : p.functions) {
      Protocol protocol(names);
      f.body = protocol.mutate(f.body);
    }
  }
  return out;
}

} // namespace tk::lower
