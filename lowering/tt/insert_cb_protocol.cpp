#include "lowering/tt/insert_cb_protocol.hpp"

#include "lowering/ir/equal.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"

#include <optional>

namespace tk::lower {

namespace {

using namespace tk::ir;

bool is_read(Intrinsic fn) {
  return fn == Intrinsic::df_read_tile || fn == Intrinsic::df_read_block ||
         fn == Intrinsic::df_mcast_block;
}
bool is_transfer(Intrinsic fn) {
  return is_read(fn) || fn == Intrinsic::df_write_tile || fn == Intrinsic::df_write_block;
}
bool is_block(Intrinsic fn) {
  return fn == Intrinsic::df_read_block || fn == Intrinsic::df_write_block ||
         fn == Intrinsic::df_mcast_block;
}

// One df.read_tile, df.write_tile, df.read_block or df.write_block and where it came from.
struct Transfer {
  const Call* call;
  SourceRange at;
};

class Protocol : public Mutator {
public:
  explicit Protocol(ir::NameSet& names) : names_(names) {}

  /// The barrier that ends a kernel that wrote (a writer, or a reader that multicasts): every
  /// write complete before it returns, as ttnn's matmul readers and writers end (the firmware
  /// asserts after kernel_main only that writes were sent, which the per-group flush ensures).
  std::optional<Stmt> kernel_end() const {
    if (!last_write_)
      return std::nullopt;
    return evaluate(call(Intrinsic::noc_async_write_barrier, {}), *last_write_);
  }

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
    case Intrinsic::df_mcast_block:
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
  std::optional<SourceRange> last_write_; // of the last write expanded

  // The handshake of a df.mcast_block (its window reserved and, on the sender, read), as the
  // SDK's matmul_multicore_reuse_mcast: a receiver clears its `valid` flag and raises the sender's
  // `ready` semaphore; the sender waits for all of them, multicasts the block and then its own
  // `valid` flag, which lands behind the data (same NoC, same virtual channel); a receiver waits
  // for the flag. Every receiver signals before anyone waits, so two multicasts in one group
  // (A along the row, B down the column) cannot wait on each other.
  static void multicast(const Call& c, SourceRange at, std::vector<Stmt>& ready,
                        std::vector<Stmt>& send, std::vector<Stmt>& landed) {
    const std::vector<Expr>& a = c.args;
    const Expr &receives = a[10], &x0 = a[11], &y0 = a[12], &x1 = a[13], &y1 = a[14],
               &dests = a[15], &sx = a[16], &sy = a[17];
    Expr ready_sem = call(Intrinsic::get_semaphore, {a[18]});
    Expr valid_sem = call(Intrinsic::get_semaphore, {a[19]});
    auto ev = [&](Intrinsic fn, std::vector<Expr> args) {
      return evaluate(call(fn, std::move(args)), at);
    };
    Expr receiver = binary(BinaryOp::ne, receives, int_imm(0));
    ready.push_back(
        if_then_else(receiver,
                     block({ev(Intrinsic::noc_semaphore_set, {valid_sem, int_imm(0)}),
                            ev(Intrinsic::noc_semaphore_inc, {sx, sy, ready_sem, int_imm(1)})}),
                     nullptr, at));
    Expr bytes = a[3] * a[4] * call(Intrinsic::get_tile_size, {a[0]});
    send.push_back(if_then_else(
        binary(BinaryOp::logical_and, binary(BinaryOp::eq, receives, int_imm(0)),
               binary(BinaryOp::gt, dests, int_imm(0))),
        block({ev(Intrinsic::noc_semaphore_wait, {ready_sem, dests}),
               ev(Intrinsic::noc_semaphore_set, {ready_sem, int_imm(0)}),
               ev(Intrinsic::noc_async_write_multicast,
                  {call(Intrinsic::get_write_ptr, {a[0]}), x0, y0, x1, y1, bytes, dests}),
               ev(Intrinsic::noc_semaphore_set, {valid_sem, int_imm(1)}),
               ev(Intrinsic::noc_semaphore_set_multicast, {valid_sem, x0, y0, x1, y1, dests})}),
        nullptr, at));
    landed.push_back(
        if_then_else(receiver, block({ev(Intrinsic::noc_semaphore_wait, {valid_sem, int_imm(1)})}),
                     nullptr, at));
  }

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
  // pages, page (r, c) of the block at `first + r * row stride + c * column stride` of the tensor
  // and at page `r * cols + c` of the window. A multicast block is read by its sender only; after
  // the barrier come the handshakes (multicast()). Clears `group`.
  Stmt expand(std::vector<Transfer>& group) {
    const bool read = is_read(group.front().call->fn);
    std::vector<Stmt> open, move, close;
    std::vector<Stmt> ready, send, landed; // the multicasts' handshakes
    for (const Transfer& t : group) {
      const std::vector<Expr>& a = t.call->args;
      const Expr& cb = a[0];
      Expr pages = is_block(t.call->fn) ? a[9] : int_imm(1);
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
        // The page's offset in the window is a let of its own (`let cb_A_offset = (r * cols + c)
        // * get_tile_size(cb_A)`): the NoC call then fits in two lines aligned after its `(`,
        // the layout ttgen writes without clang-format (docs/ttgen.md, "Start-up").
        Expr offset = (rv * a[4] + cv) * call(Intrinsic::get_tile_size, {cb});
        const std::string o = names_.fresh(name + "_offset");
        const Type offset_type = offset->type;
        Stmt at = decl(o, offset_type, std::move(offset), t.at);
        Stmt one = evaluate(call(noc, {a[2] + ir::mul(rv, a[5]) + ir::mul(cv, a[6]), a[1],
                                       window + var(o, offset_type)}),
                            t.at);
        Stmt each = for_loop(
            r, int_imm(0), a[7], ForRole::serial,
            block({for_loop(c, int_imm(0), a[8], ForRole::serial, block({at, one}), t.at)}), t.at);
        if (t.call->fn == Intrinsic::df_mcast_block) {
          each =
              if_then_else(binary(BinaryOp::eq, a[10], int_imm(0)), block({each}), nullptr, t.at);
          multicast(*t.call, t.at, ready, send, landed);
          last_write_ = t.at; // the sender's multicasts are writes
        }
        move.push_back(each);
      }
      close.push_back(evaluate(
          call(read ? Intrinsic::cb_push_back : Intrinsic::cb_pop_front, {cb, pages}), t.at));
    }
    // A read must land before its pages are pushed. A write need only have left L1 before its
    // pages are popped (and overwritten by the producer): the SDK's writers flush per page and
    // wait for the writes to complete once, at the end of the kernel (kernel_end below).
    move.push_back(evaluate(
        call(read ? Intrinsic::noc_async_read_barrier : Intrinsic::noc_async_writes_flushed, {}),
        group.back().at));
    if (!read)
      last_write_ = group.back().at;
    group.clear();
    open.insert(open.end(), move.begin(), move.end());
    for (std::vector<Stmt>* h : {&ready, &send, &landed})
      open.insert(open.end(), h->begin(), h->end());
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
      if (std::optional<Stmt> end = protocol.kernel_end())
        f.body = block({f.body, *end});
    }
  }
  return out;
}

} // namespace tk::lower
