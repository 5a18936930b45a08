#include "lowering/tt/insert_compute_init.hpp"
#include "lowering/tt/insert_compute_init_formats.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace tk::lower {

namespace {

using namespace tk::ir;

bool is_row(const Expr& e) {
  return as<EnumImm>(e)->value == EnumConst::bcast_row;
}

// The init a DST-writing operation needs; `ocb` is where its section packs (reduce_init wants it).
Stmt init_for(const Call& c, const std::string& ocb) {
  auto mk = [](Intrinsic fn, std::vector<Expr> args) {
    return evaluate(call(fn, std::move(args)));
  };
  const std::vector<Expr>& a = c.args;
  switch (c.fn) {
  case Intrinsic::copy_tile:
    return mk(Intrinsic::copy_tile_to_dst_init_short, {a[0]});
  case Intrinsic::matmul_tiles:
    return mk(Intrinsic::mm_init_short, {a[0], a[1]});
  case Intrinsic::matmul_tiles_bt:
    return mk(Intrinsic::mm_init_short_bt, {a[0], a[1]});
  case Intrinsic::matmul_block: // (in0, in1, transpose, ct_dim, rt_dim, kt_dim)
    return mk(Intrinsic::mm_block_init_short, {a[0], a[1], a[5], a[6], a[7], a[8]});
  case Intrinsic::transpose_wh_tile:
    return mk(Intrinsic::transpose_wh_init_short, {a[0]});
  case Intrinsic::add_tiles:
    return mk(Intrinsic::add_tiles_init, {a[0], a[1]});
  case Intrinsic::sub_tiles:
    return mk(Intrinsic::sub_tiles_init, {a[0], a[1]});
  case Intrinsic::mul_tiles:
    return mk(Intrinsic::mul_tiles_init, {a[0], a[1]});
  case Intrinsic::add_tiles_bcast:
    return mk(is_row(a[0]) ? Intrinsic::add_bcast_rows_init_short
                           : Intrinsic::add_bcast_cols_init_short,
              {a[1], a[2]});
  case Intrinsic::sub_tiles_bcast:
    // The SDK has no sub_bcast_rows_init_short; its full init_bcast covers that case.
    if (is_row(a[0]))
      return mk(Intrinsic::init_bcast,
                {enum_imm(EnumConst::elw_sub), a[0], a[1], a[2], cb_ref(ocb)});
    return mk(Intrinsic::sub_bcast_cols_init_short, {a[1], a[2]});
  case Intrinsic::mul_tiles_bcast:
    return mk(is_row(a[0]) ? Intrinsic::mul_bcast_rows_init_short
                           : Intrinsic::mul_bcast_cols_init_short,
              {a[1], a[2]});
  case Intrinsic::unary_bcast:
    return mk(Intrinsic::unary_bcast_init, {a[0], a[1], cb_ref(ocb)});
  case Intrinsic::reduce_tile:
    return mk(Intrinsic::reduce_init, {a[0], a[1], a[2], a[3], cb_ref(ocb)});
  case Intrinsic::fill_tile:
    return mk(Intrinsic::fill_tile_init, {});
  case Intrinsic::add_binary_tile:
    return mk(Intrinsic::add_binary_tile_init, {});
  case Intrinsic::sub_binary_tile:
    return mk(Intrinsic::sub_binary_tile_init, {});
  case Intrinsic::mul_binary_tile:
    return mk(Intrinsic::mul_binary_tile_init, {});
  case Intrinsic::binary_max_tile:
    return mk(Intrinsic::binary_max_tile_init, {});
  case Intrinsic::binary_min_tile:
    return mk(Intrinsic::binary_min_tile_init, {});
  case Intrinsic::where_tile:
    return mk(Intrinsic::where_tile_init, {});
  case Intrinsic::exp_tile_approx:
    return mk(Intrinsic::exp_tile_init_approx, {});
  case Intrinsic::exp_tile_approx_noclamp:
    return mk(Intrinsic::exp_tile_init_approx_noclamp, {});
  case Intrinsic::exp_tile_col: // the call's init, whatever the vector mode
    return mk(Intrinsic::exp_tile_init, {});
  case Intrinsic::recip_tile_col:
    return mk(Intrinsic::recip_tile_init, {});
  case Intrinsic::exp_tile_approx_scaled: // the scale: a compile-time value (fold-scale-args)
    return mk(Intrinsic::exp_tile_init_approx_scaled, {a[1]});
  case Intrinsic::exp_tile_approx_noclamp_scaled:
    return mk(Intrinsic::exp_tile_init_approx_noclamp_scaled, {a[1]});
  default:
    break;
  }
  // The SFPU call of an op table row (unary, scalar and compare ops) comes with the row's init.
  for (ops::Op op : ops::all_ops())
    if (tt_call(op) == c.fn)
      return mk(*tt_init(op), {});
  throw InternalError("internal error: insert-compute-init: no init for " +
                      print(evaluate(call(c.fn, c.args))));
}

bool is_assume_zero(const Stmt& s) {
  const Evaluate* e = as<Evaluate>(s);
  const Call* c = e ? as<Call>(e->call) : nullptr;
  return c && c->fn == Intrinsic::dst_assume_zero;
}

const Call* dst_op(const Stmt& s) {
  const Evaluate* e = as<Evaluate>(s);
  const Call* c = e ? as<Call>(e->call) : nullptr;
  // dst.assume_zero writes DST's bookkeeping, not DST: no code, no init.
  return c && tt::writes_dst(c->fn) && c->fn != Intrinsic::dst_assume_zero ? c : nullptr;
}

class Inits {
public:
  Inits(const Program& p, const Function& f) : p_(p) {
    for (const std::string& cb : tt::unpack_to_dest_fp32(p, f))
      to_dest_.insert(cb);
    index_packs(f.body);
  }

  struct State {
    std::string key; // the printed init last executed; empty when unknown
    bool reduce = false;
  };

  Stmt walk(const Stmt& s, State& st) {
    std::vector<Stmt> out;
    for (const Stmt& x : as<Block>(s)->stmts) {
      if (const Call* c = dst_op(x)) {
        ensure(init_for(*c, ocb_.at(c)), st, out);
        out.push_back(x);
      } else if (const For* f = as<For>(x)) {
        std::vector<Stmt> needs;
        collect_inits(f->body, needs);
        std::set<std::string> keys;
        for (const Stmt& n : needs)
          keys.insert(key_of(n));
        if (keys.size() == 1) { // uniform: once, before the loop
          ensure(needs.front(), st, out);
          out.push_back(x);
        } else if (keys.empty()) {
          out.push_back(x);
        } else {
          if (st.reduce) // the body's first init starts from scratch; leave reduce mode first
            out.push_back(evaluate(call(Intrinsic::reduce_uninit, {})));
          State inner;
          Stmt body = walk(f->body, inner);
          if (inner.reduce) // the next iteration's first init must not inherit reduce state
            body = block({body, evaluate(call(Intrinsic::reduce_uninit, {}))});
          out.push_back(for_loop(f->var, f->min, f->extent, f->role, body, f->loc.range));
          st = State{};
        }
      } else if (const IfThenElse* i = as<IfThenElse>(x);
                 i && ir::any_call(x, [](Intrinsic fn) { return tt::writes_dst(fn); })) {
        // Each branch from the state before it (block-products' guarded blocks); after it, the
        // state both leave, or unknown.
        State then_st = st, else_st = st;
        Stmt t = walk(i->then_case, then_st);
        Stmt e = i->else_case ? walk(i->else_case, else_st) : nullptr;
        out.push_back(if_then_else(i->cond, t, e, x->loc.range));
        st = then_st.key == else_st.key && then_st.reduce == else_st.reduce
                 ? then_st
                 : State{"", then_st.reduce || else_st.reduce};
      } else {
        out.push_back(x);
      }
    }
    return block(std::move(out));
  }

  // compute_kernel_hw_startup(icb0, icb1, ocb): the CBs the first CB-reading operation unpacks
  // through srcA and srcB (matmul's in1 first, as mm_init configures it; reduce's scaler second)
  // and the first CB packed to. A kernel that unpacks nothing (every tile it packs is a constant
  // made in DST) still needs the packer configured: the unpacker then takes the output CB's
  // format, which nothing reads through it.
  std::optional<Stmt> startup() const {
    if (first_out_.empty())
      return std::nullopt;
    if (!first_in0_)
      return evaluate(call(Intrinsic::compute_kernel_hw_startup,
                           {cb_ref(first_out_), cb_ref(first_out_), cb_ref(first_out_)}));
    return evaluate(
        call(Intrinsic::compute_kernel_hw_startup, {first_in0_, first_in1_, cb_ref(first_out_)}));
  }

private:
  const Program& p_;
  std::set<std::string> to_dest_; // the CBs unpacked straight to DST (UnpackToDestFp32)
  std::map<const Call*, std::string> ocb_;
  Expr first_in0_, first_in1_;
  std::string first_out_;

  // What an init configures, as the SDK's code reads its arguments (tt-metal a8c5af0f5a26):
  // copy_tile_to_dst_init_short(cb) reads only the CB's tile shape and formats
  // (llk_unpack_A_init: face_r_dim, num_faces, unpack_src/dst_format, whether it unpacks to
  // DST; llk_math_eltwise_unary_datacopy_init: num_faces, the DST format) and
  // mm_init_short(in0, in1[, transpose]) only the operands' tile shapes (llk_unpack_AB_matmul_init:
  // face_r_dim, num_faces, partial_face; llk_math_matmul_init), so two such inits for CBs of one
  // format and unpack path configure the same thing: the second is left out (the copies of m and
  // mn, l and c in FlashAttention's key step, its Q·Kᵀ init before a stream loop that does not
  // run). Every CB here holds 32×32 tiles; the format stands for the rest. Any other init is
  // known by what it prints.
  std::string key_of(const Stmt& need) const {
    const Call* c = as<Call>(as<Evaluate>(need)->call);
    auto unit = [&](const Expr& e) {
      const std::string& cb = as<Ref>(e)->name;
      const CircularBuffer* b = p_.find_cb(cb);
      if (!b)
        return cb;
      return std::string(ir::to_string(b->format)) + (to_dest_.count(cb) ? "/dest" : "");
    };
    switch (c->fn) {
    case Intrinsic::copy_tile_to_dst_init_short:
      return "copy_tile_to_dst_init_short " + unit(c->args[0]);
    case Intrinsic::mm_init_short:
    case Intrinsic::mm_init_short_bt:
      return std::string(c->fn == Intrinsic::mm_init_short ? "mm_init_short "
                                                           : "mm_init_short_bt ") +
             unit(c->args[0]) + " " + unit(c->args[1]);
    default:
      return print(need);
    }
  }

  void ensure(const Stmt& need, State& st, std::vector<Stmt>& out) {
    std::string key = key_of(need);
    if (key == st.key)
      return;
    // Before the dst.assume_zero claims right ahead of the operation: they open its section, so
    // the init stays outside it as before.
    auto at = out.end();
    while (at != out.begin() && is_assume_zero(*(at - 1)))
      --at;
    if (st.reduce)
      at = out.insert(at, evaluate(call(Intrinsic::reduce_uninit, {}))) + 1;
    out.insert(at, need);
    st.key = key;
    st.reduce = as<Call>(as<Evaluate>(need)->call)->fn == Intrinsic::reduce_init;
  }

  void collect_inits(const Stmt& s, std::vector<Stmt>& needs) {
    if (const Block* b = as<Block>(s)) {
      for (const Stmt& x : b->stmts)
        collect_inits(x, needs);
    } else if (const For* f = as<For>(s)) {
      collect_inits(f->body, needs);
    } else if (const IfThenElse* i = as<IfThenElse>(s)) {
      collect_inits(i->then_case, needs);
      if (i->else_case)
        collect_inits(i->else_case, needs);
    } else if (const Call* c = dst_op(s)) {
      needs.push_back(init_for(*c, ocb_.at(c)));
    }
  }

  // Each DST operation's section packs to the CB of the next pack_tile in program order.
  void index_packs(const Stmt& body) {
    std::vector<const Call*> pending;
    std::function<void(const Stmt&)> visit = [&](const Stmt& s) {
      if (const Block* b = as<Block>(s)) {
        for (const Stmt& x : b->stmts)
          visit(x);
      } else if (const For* f = as<For>(s)) {
        visit(f->body);
      } else if (const IfThenElse* i = as<IfThenElse>(s)) {
        visit(i->then_case);
        if (i->else_case)
          visit(i->else_case);
      } else if (const Call* c = dst_op(s)) {
        pending.push_back(c);
        const tt::Unpackers u = tt::unpackers(*c);
        if (!first_in0_ && u.srca) {
          first_in0_ = u.srca;
          first_in1_ = u.srcb ? u.srcb : u.srca;
        }
      } else if (const Evaluate* e = as<Evaluate>(s)) {
        const Call* pk = as<Call>(e->call);
        if (pk->fn != Intrinsic::pack_tile)
          return;
        std::string cb = as<Ref>(pk->args[1])->name;
        if (first_out_.empty())
          first_out_ = cb;
        for (const Call* p : pending)
          ocb_[p] = cb;
        pending.clear();
      }
    };
    visit(body);
    for (const Call* p : pending) // never packed: cannot happen after select-tile-ops
      ocb_[p] = first_out_;
  }
};

} // namespace

ir::Module insert_compute_init(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs)
    for (Function& f : p.functions) {
      if (f.kind != FuncKind::compute)
        continue;
      Inits in(p, f);
      Inits::State st;
      Stmt body = in.walk(f.body, st);
      std::optional<Stmt> start = in.startup();
      if (!start)
        continue;
      body = tt::insert_format_reconfigs(p, body, *as<Call>(as<Evaluate>(*start)->call));
      std::vector<Stmt> ss = as<Block>(body)->stmts;
      auto first = std::find_if(ss.begin(), ss.end(), [](const Stmt& s) { return !as<Decl>(s); });
      ss.insert(first, *start);
      f.body = block(std::move(ss));
    }
  return out;
}

} // namespace tk::lower
