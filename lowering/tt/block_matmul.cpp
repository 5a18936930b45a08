#include "lowering/tt/block_matmul.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"
#include "lowering/tt/choose_blocks.hpp"
#include "lowering/tt/select_tile_ops_state.hpp"
#include "lowering/tt/target.hpp"

#include <algorithm>
#include <bit>

namespace tk::lower {

namespace {

using namespace tk::ir;

Expr i32(std::int64_t v) {
  return int_imm(v);
}
Expr min_of(Expr a, Expr b) {
  return binary(BinaryOp::min, std::move(a), std::move(b));
}
Expr max_of(Expr a, Expr b) {
  return binary(BinaryOp::max, std::move(a), std::move(b));
}
Stmt call_stmt(Intrinsic fn, std::vector<Expr> args) {
  return evaluate(call(fn, std::move(args)));
}

// An epilogue that runs in DST (docs/lowering.md, "Epilogues in DST"): unary and scalar SFPU ops
// (`chain`, outermost first) over `acc` plus at most one row vector (a bias, `bcast_row(b[0, j])`).
// The bias is DST's initial value, loaded before the first product (unary_bcast), so the products
// accumulate onto it; the chain runs on the sub-block in DST after the last K step's products,
// before the pack. A tile of C's shape (a residual) keeps the last pass: read for the seed, its
// sub-blocks' round trips held up every core of the multicast grid (mlp's second program 450.9 ->
// 503.1 us), and added after the last products it needs binary_dest_reuse_tiles.
struct DstEpilogue {
  std::string row;                // the bias's tensor, "" when absent
  std::vector<const Call*> chain; // outermost first
};
std::optional<DstEpilogue> dst_form(const Expr& e, const std::string& acc) {
  DstEpilogue d;
  Expr cur = e;
  for (;;) {
    const Call* c = as<Call>(cur);
    const std::optional<ops::Op> op = c ? ir::op_of(c->fn) : std::nullopt;
    if (!op ||
        (ops::info(*op).kind != ops::Kind::unary && ops::info(*op).kind != ops::Kind::scalar))
      break;
    d.chain.push_back(c);
    cur = c->args[0];
  }
  std::vector<Expr> terms;
  std::vector<Expr> todo{cur};
  while (!todo.empty()) {
    Expr x = todo.back();
    todo.pop_back();
    if (const Call* c = as<Call>(x); c && c->fn == Intrinsic::tile_add) {
      todo.push_back(c->args[1]);
      todo.push_back(c->args[0]);
    } else {
      terms.push_back(x);
    }
  }
  int accs = 0;
  for (const Expr& t : terms) {
    if (const Var* v = as<Var>(t); v && v->name == acc) {
      ++accs;
    } else if (const Call* c = as<Call>(t); c && c->fn == Intrinsic::tile_bcast_row) {
      const Load* l = as<Load>(c->args[0]);
      if (!l || !d.row.empty())
        return std::nullopt;
      d.row = l->tensor;
    } else {
      return std::nullopt;
    }
  }
  if (accs != 1)
    return std::nullopt;
  return d;
}

class Blocked {
public:
  Blocked(Program& p, const tt::MatmulPattern& mm, Diagnostics& diags)
      : p_(p), mm_(mm), names_(p), diags_(diags) {
    const ir::Blocking& b = *p.blocking;
    sh_ = b.sub_rows;
    sw_ = b.sub_cols;
    caps_ = {b.cap_a, b.cap_b, b.cap_partials};
    const ir::Blocking::Costs& k = b.costs; // tt.matmul_block's order
    costs_ = {k.product, k.round_trip, k.multicast,    k.dram,   k.page_a,
              k.page_b,  k.read,       k.step_latency, k.page_c, k.write};
    fixed_ = {tt::options(p).matmul_rows, tt::options(p).matmul_cols}; // 0, 0: the rule's choice
    for (const CircularBuffer& c : p.cbs) {
      if (c.tensor == mm.a)
        cb_a_ = c.name;
      else if (c.tensor == mm.b)
        cb_b_ = c.name;
      else if (c.tensor == mm.c)
        cb_c_ = c.name;
      else if (std::find(mm.rows.begin(), mm.rows.end(), c.tensor) != mm.rows.end())
        cb_rows_[c.tensor] = c.name;
      else if (std::find(mm.tiles.begin(), mm.tiles.end(), c.tensor) != mm.tiles.end())
        cb_tiles_[c.tensor] = c.name;
    }
  }

  void run() {
    plan_cbs();
    p_.dst_fp32 = true;
    Function& k = *ir::find_function(p_, FuncKind::kernel);
    kernel_ = k; // the tile form, which the epilogue's selection reads its tile counts from
    std::vector<Stmt> top = as<Block>(k.body)->stmts;
    top.pop_back(); // the parallel nest; the tile-count lets stay
    const Grid grid = tt::option_grid(p_);
    auto rule = [&](std::int64_t field) {
      std::vector<Expr> args{i32(field),  v(mm_.mt),   v(mm_.kt), v(mm_.nt),
                             i32(grid.x), i32(grid.y), i32(sh_),  i32(sw_)};
      for (std::int64_t x : caps_)
        args.push_back(i32(x));
      for (std::int64_t x : costs_)
        args.push_back(i32(x));
      for (std::int64_t x : fixed_)
        args.push_back(i32(x));
      return call(Intrinsic::tt_matmul_block, std::move(args));
    };
    bm_ = names_.fresh("bm");
    bn_ = names_.fresh("bn");
    bk_ = names_.fresh("bk");
    std::string mb = names_.fresh("Mb"), nb = names_.fresh("Nb");
    top.push_back(decl(bm_, Type::i32(), rule(0)));
    top.push_back(decl(bn_, Type::i32(), rule(1)));
    top.push_back(decl(bk_, Type::i32(), rule(2)));
    top.push_back(decl(mb, Type::i32(), (v(mm_.mt) + v(bm_) - i32(1)) / v(bm_)));
    top.push_back(decl(nb, Type::i32(), (v(mm_.nt) + v(bn_) - i32(1)) / v(bn_)));
    std::string bi = names_.fresh("bi"), bj = names_.fresh("bj");
    Stmt inner =
        for_loop(bj, i32(0), v(nb), ForRole::parallel, block_body(bi, bj), mm_.outer->loc.range);
    Stmt blocks =
        for_loop(bi, i32(0), v(mb), ForRole::parallel, block({inner}), mm_.outer->loc.range);
    // A batch: the blocks of each matrix in turn (to-core-loop walks them serially on every
    // core, so a grid row still shares A's blocks and a column B's).
    if (!mm_.batch.empty())
      blocks = for_loop(mm_.batch, i32(0), v(mm_.batch_size), ForRole::parallel, block({blocks}),
                        mm_.outer->loc.range);
    top.push_back(blocks);
    k.body = block(std::move(top));
  }

private:
  Program& p_;
  const tt::MatmulPattern& mm_;
  ir::NameSet names_;
  Diagnostics& diags_;
  Function kernel_;
  std::map<std::string, std::string> cb_rows_;  // an epilogue's row vector -> its CB
  std::map<std::string, std::string> cb_tiles_; // an epilogue's tile of C's shape -> its CB
  std::int64_t sh_ = 2, sw_ = 2;
  std::vector<std::int64_t> caps_, costs_, fixed_;
  std::string cb_a_, cb_b_, cb_c_, cb_p_;
  std::string bm_, bn_, bk_, r0_, c0_, rows_, cols_, sub_down_, sub_across_;

  static Expr v(const std::string& n) { return var(n, Type::i32()); }

  // The first page of matrix b of a batched tensor (rows x cols tiles a matrix); 0 otherwise.
  Expr base(bool batched, const std::string& rows, const std::string& cols) const {
    return batched && !mm_.batch.empty() ? v(mm_.batch) * v(rows) * v(cols) : i32(0);
  }
  Expr cb(const std::string& n) const { return cb_ref(n); }

  void plan_cbs() {
    CircularBuffer partials;
    partials.name = names_.fresh("cb_partials");
    partials.index = tt::cb_range(CBRole::partials).first;
    partials.format = data_format_of(tt::kPartialsDtype);
    partials.page_size = tile_bytes(tt::kPartialsDtype);
    partials.depth = caps_[2];
    partials.role = CBRole::partials;
    // A row vector of the epilogue holds a block's columns: at most half of B's capacity.
    for (CircularBuffer& x : p_.cbs)
      if (x.name == cb_a_)
        x.depth = caps_[0];
      else if (x.name == cb_b_) {
        x.depth = caps_[1];
        // B's blocks stay with the reader, beside A's. ttnn's 2D multicast matmul gives them to
        // the writer, on the other NoC (tt-metal a8c5af0f5a26,
        // matmul_multicore_reuse_mcast_2d_program_factory.cpp: in0 on RISCV_1, in1 and the output
        // on RISCV_0), and `read_by_writer = true` here does the same (split-kernels and
        // multicast-reads take it); by the timing model that gains 11-40% where a core computes
        // one block (512^3, 1024^3) and loses 9-16% where it computes several (4096^3: C's
        // drain on NoC 0 holds up B's next reads; docs/bench.md, "A on one NoC, B and C on the
        // other"). The number of blocks per core is known only at run time, so the choice
        // belongs to the host's rule; until it makes it, the larger shapes decide.
        x.read_by_writer = false;
      } else if (x.name == cb_c_)
        x.depth = 2 * sh_ * sw_;
      else if (cb_rows_.count(x.tensor))
        x.depth = row_window();
      else if (cb_tiles_.count(x.tensor))
        x.depth = 2 * sh_ * sw_; // a sub-block's tiles, double-buffered
    p_.cbs.push_back(partials);
    cb_p_ = partials.name;
  }

  // The epilogue in DST, when it has that form and reads its inputs from the CBs planned for
  // them; nullopt for the plain C = acc (the last pass below) and for any other epilogue.
  std::optional<DstEpilogue> in_dst() const {
    const Var* plain = as<Var>(mm_.epilogue);
    if (plain && plain->name == mm_.acc)
      return std::nullopt;
    std::optional<DstEpilogue> d = dst_form(mm_.epilogue, mm_.acc);
    if (d && !d->row.empty() && !cb_rows_.count(d->row))
      return std::nullopt;
    return d;
  }

  // The first tile of sub-block (sr, sc) of the block in C's pages.
  Expr sub_first(const Expr& sr, const Expr& sc) const {
    return ir::add(base(true, mm_.mt, mm_.nt),
                   (v(r0_) + sr * i32(sh_)) * v(mm_.nt) + v(c0_) + sc * i32(sw_));
  }
  // The sub-block's tiles inside C, as lets (loop bounds stay plain variables): {rows, cols}.
  std::pair<Expr, Expr> sub_extent(std::vector<Stmt>& s, const Expr& sr, const Expr& sc) {
    std::string rn = names_.fresh("sub_rows"), cn = names_.fresh("sub_cols");
    s.push_back(decl(rn, Type::i32(), max_of(i32(0), min_of(i32(sh_), v(rows_) - sr * i32(sh_)))));
    s.push_back(decl(cn, Type::i32(), max_of(i32(0), min_of(i32(sw_), v(cols_) - sc * i32(sw_)))));
    return {v(rn), v(cn)};
  }

  // One block of C with its epilogue in DST: the seed (each sub-block's partial sums start as the
  // bias, or zero), every K step but the last into the partial sums, the last one's
  // products on top of them, the epilogue's SFPU ops in DST, one pack into C's CB.
  Stmt block_in_dst(const DstEpilogue& d) {
    std::vector<Stmt> out;
    const std::int64_t n = sh_ * sw_;
    const std::string cb_row = d.row.empty() ? "" : cb_rows_.at(d.row);
    // The row vector's block of columns, read first (a window of one block): the seed is its only
    // reader, and pops it before the K steps, so the next block's row is read while this block's
    // products run.
    if (!cb_row.empty()) {
      out.push_back(call_stmt(Intrinsic::df_read_block,
                              {cb(cb_row), tensor_ref(d.row), v(c0_), i32(1), v(bn_), v(mm_.nt),
                               i32(1), i32(1), v(cols_), i32(row_window())}));
      out.push_back(call_stmt(Intrinsic::cb_wait_front, {cb(cb_row), i32(row_window())}));
    }
    out.push_back(sub_blocks([&](const Expr&, const Expr& sc) {
      std::vector<Stmt> s;
      const Expr row = enum_imm(EnumConst::bcast_row);
      for (std::int64_t t = 0; t < n; ++t) {
        Expr col = sc * i32(sw_) + i32(t % sw_); // the tile's column in the block
        if (!cb_row.empty())
          s.push_back(call_stmt(Intrinsic::unary_bcast, {row, cb(cb_row), col, i32(t)}));
        else
          s.push_back(call_stmt(Intrinsic::dst_assume_zero, {i32(t)}));
      }
      for (std::int64_t t = 0; t < n; ++t)
        s.push_back(call_stmt(Intrinsic::pack_tile, {i32(t), cb(cb_p_)}));
      return s;
    }));
    if (!cb_row.empty())
      out.push_back(call_stmt(Intrinsic::cb_pop_front, {cb(cb_row), i32(row_window())}));
    std::string kb = names_.fresh("kb");
    out.push_back(for_loop(kb, i32(0), v(mm_.kt) / v(bk_) - i32(1), ForRole::reduction,
                           k_step(v(kb), Step::middle)));
    last_ = &d;
    out.push_back(k_step(v(mm_.kt) / v(bk_) - i32(1), Step::last));
    last_ = nullptr;
    return block(std::move(out));
  }

  // One block of C: its corner, the tiles of it inside C, the K steps, the last pass.
  Stmt block_body(const std::string& bi, const std::string& bj) {
    r0_ = names_.fresh("r0");
    c0_ = names_.fresh("c0");
    rows_ = names_.fresh("rows");
    cols_ = names_.fresh("cols");
    std::vector<Stmt> out;
    out.push_back(decl(r0_, Type::i32(), v(bi) * v(bm_)));
    out.push_back(decl(c0_, Type::i32(), v(bj) * v(bn_)));
    out.push_back(decl(rows_, Type::i32(), min_of(v(bm_), v(mm_.mt) - v(r0_))));
    out.push_back(decl(cols_, Type::i32(), min_of(v(bn_), v(mm_.nt) - v(c0_))));
    // The sub-blocks that hold a tile of C: a block over C's edge (the last of a row or column of
    // blocks) computes, packs and writes only those, and a block past the edge (a core keeping
    // in step with its grid, rows or cols <= 0) none; the reader still brings its K steps' (empty)
    // windows, so the multicasts of every core's grid row and column stay in step.
    sub_down_ = names_.fresh("sub_down");
    sub_across_ = names_.fresh("sub_across");
    out.push_back(
        decl(sub_down_, Type::i32(), max_of(i32(0), (v(rows_) + i32(sh_ - 1)) / i32(sh_))));
    out.push_back(
        decl(sub_across_, Type::i32(), max_of(i32(0), (v(cols_) + i32(sw_ - 1)) / i32(sw_))));
    if (std::optional<DstEpilogue> d = in_dst()) {
      out.push_back(block_in_dst(*d));
      return block(std::move(out));
    }
    out.push_back(k_step(i32(0), Step::first));
    std::string kb = names_.fresh("kb");
    out.push_back(for_loop(kb, i32(1), v(mm_.kt) / v(bk_) - i32(1), ForRole::reduction,
                           k_step(v(kb), Step::middle)));
    // The epilogue's row vectors: the block's columns, once per block, read after its K steps.
    // Their CB holds one block's (a window): read before the K steps, the next block's row would
    // wait for this block's last pass to pop it, and hold up the next block's first A and B
    // behind it (mlp's first matmul: its reader stalled 120k cycles in cb_reserve_back(b1)).
    for (const auto& [t, cb_name] : cb_rows_) {
      out.push_back(call_stmt(Intrinsic::df_read_block,
                              {cb(cb_name), tensor_ref(t), v(c0_), i32(1), v(bn_), v(mm_.nt),
                               i32(1), i32(1), v(cols_), i32(row_window())}));
      out.push_back(call_stmt(Intrinsic::cb_wait_front, {cb(cb_name), i32(row_window())}));
    }
    out.push_back(sub_blocks([&](const Expr& sr, const Expr& sc) {
      std::vector<Stmt> s;
      auto [rows, cols] = sub_extent(s, sr, sc);
      const Expr first = sub_first(sr, sc);
      // The epilogue's tiles of C's shape: this sub-block's, read where C's are written.
      for (const auto& [t, cb_name] : cb_tiles_) {
        s.push_back(call_stmt(Intrinsic::df_read_block,
                              {cb(cb_name), tensor_ref(t), first, i32(sh_), i32(sw_), v(mm_.nt),
                               i32(1), rows, cols, i32(sh_ * sw_)}));
        s.push_back(call_stmt(Intrinsic::cb_wait_front, {cb(cb_name), i32(sh_ * sw_)}));
      }
      std::vector<Stmt> e = epilogue(sc);
      s.insert(s.end(), e.begin(), e.end());
      for (const auto& [t, cb_name] : cb_tiles_)
        s.push_back(call_stmt(Intrinsic::cb_pop_front, {cb(cb_name), i32(sh_ * sw_)}));
      s.push_back(call_stmt(Intrinsic::df_write_block,
                            {cb(cb_c_), tensor_ref(mm_.c), first, i32(sh_), i32(sw_), v(mm_.nt),
                             i32(1), rows, cols, i32(sh_ * sw_)}));
      return s;
    }));
    for (const auto& [t, cb_name] : cb_rows_)
      out.push_back(call_stmt(Intrinsic::cb_pop_front, {cb(cb_name), i32(row_window())}));
    return block(std::move(out));
  }

  std::int64_t row_window() const { return caps_[1] / 2; }

  // A sub-block's last pass: its partial sums into C's CB, through the epilogue when there is
  // one. The plain C = acc reloads the four into DST and packs them; an epilogue is selected tile
  // by tile as select-tile-ops would, acc read in place from the partials' CB (cb.tile) and a
  // row vector from its block of columns.
  std::vector<Stmt> epilogue(const Expr& sc) {
    const std::int64_t n = sh_ * sw_;
    const Var* plain = as<Var>(mm_.epilogue);
    if (plain && plain->name == mm_.acc) {
      std::vector<Stmt> s = reload();
      for (std::int64_t t = 0; t < n; ++t)
        s.push_back(call_stmt(Intrinsic::pack_tile, {i32(t), cb(cb_c_)}));
      return s;
    }
    std::vector<Stmt> s{call_stmt(Intrinsic::cb_wait_front, {cb(cb_p_), i32(n)})};
    tt::TileSelector sel(p_, kernel_, diags_, /*economy=*/false);
    sel.set_output(&s);
    for (std::int64_t t = 0; t < n; ++t) {
      Expr col = sc * i32(sw_) + i32(t % sw_); // the tile's column in the block
      struct InPlace : Mutator {
        const Blocked* self;
        std::int64_t t;
        Expr col;
        Expr mutate_node(const Var& x, const Expr& e) override {
          return x.name == self->mm_.acc ? call(Intrinsic::cb_tile, {cb_ref(self->cb_p_), i32(t)})
                                         : e;
        }
        Expr mutate_node(const Load& l, const Expr&) override {
          if (auto it = self->cb_tiles_.find(l.tensor); it != self->cb_tiles_.end())
            return call(Intrinsic::cb_tile, {cb_ref(it->second), i32(t)});
          return call(Intrinsic::cb_tile, {cb_ref(self->cb_rows_.at(l.tensor)), col});
        }
      } in_place;
      in_place.self = this;
      in_place.t = t;
      in_place.col = col;
      tt::Val val = sel.select(in_place.mutate(mm_.epilogue));
      sel.pack(val, cb_c_);
      sel.close_section();
    }
    s.push_back(call_stmt(Intrinsic::cb_pop_front, {cb(cb_p_), i32(n)}));
    return s;
  }

  // K step kb: read the blocks of A and B, then every sub-block's products into the partials
  // (first: onto DST's zero; middle: onto the partial sums reloaded), or, the last step of an
  // epilogue in DST (last_), onto the reloaded sums, then the epilogue's SFPU ops in DST, packed
  // into C's CB and written.
  enum class Step { first, middle, last };
  const DstEpilogue* last_ = nullptr;
  Stmt k_step(const Expr& kb, Step step) {
    const bool first = step == Step::first;
    std::vector<Stmt> s;
    // Each K step takes half of A's and of B's CB, whatever the block's size: a window that
    // divides the CB never wraps around its end, which a block read into contiguous L1 pages
    // could not cross.
    Expr a_tiles = i32(caps_[0] / 2), b_tiles = i32(caps_[1] / 2);
    s.push_back(call_stmt(
        Intrinsic::df_read_block,
        {cb(cb_a_), tensor_ref(mm_.a),
         ir::add(ir::add(base(true, mm_.mt, mm_.kt), v(r0_) * v(mm_.kt)), ir::mul(kb, v(bk_))),
         v(bm_), v(bk_), v(mm_.kt), i32(1), v(rows_), v(bk_), a_tiles}));
    // B's block k-major, as matmul_block reads in1: tile (k, j) of the block is B[k, j], or,
    // for B^T, B[j, k], which matmul_block transposes as it multiplies. B's page of (k, j) is
    // k * Nt + j, B^T's j * Kt + k.
    const Expr k0 = ir::mul(kb, v(bk_));
    const Expr k_stride = mm_.transpose_b ? i32(1) : v(mm_.nt);
    const Expr j_stride = mm_.transpose_b ? v(mm_.kt) : i32(1);
    s.push_back(
        call_stmt(Intrinsic::df_read_block,
                  {cb(cb_b_), tensor_ref(mm_.b),
                   ir::add(ir::add(base(mm_.b_batched, mm_.kt, mm_.nt), ir::mul(k0, k_stride)),
                           ir::mul(v(c0_), j_stride)),
                   v(bk_), v(bn_), k_stride, j_stride, v(bk_), v(cols_), b_tiles}));
    s.push_back(call_stmt(Intrinsic::cb_wait_front, {cb(cb_a_), a_tiles}));
    s.push_back(call_stmt(Intrinsic::cb_wait_front, {cb(cb_b_), b_tiles}));
    s.push_back(sub_blocks([&](const Expr& sr, const Expr& sc) {
      std::vector<Stmt> x;
      if (first)
        for (std::int64_t t = 0; t < sh_ * sw_; ++t)
          x.push_back(call_stmt(Intrinsic::dst_assume_zero, {i32(t)}));
      else
        x = reload();
      std::string kk = names_.fresh("k");
      x.push_back(
          for_loop(kk, i32(0), v(bk_), ForRole::serial,
                   block({call_stmt(Intrinsic::matmul_block,
                                    {cb(cb_a_), cb(cb_b_), sr * i32(sh_) * v(bk_) + v(kk),
                                     v(kk) * v(bn_) + sc * i32(sw_), i32(0),
                                     i32(mm_.transpose_b ? 1 : 0), i32(sw_), i32(sh_), v(bk_)})})));
      if (step != Step::last) {
        for (std::int64_t t = 0; t < sh_ * sw_; ++t)
          x.push_back(call_stmt(Intrinsic::pack_tile, {i32(t), cb(cb_p_)}));
        return x;
      }
      // The epilogue's ops, innermost first, each on every tile of the sub-block in place (one
      // init per op and sub-block).
      for (auto op = last_->chain.rbegin(); op != last_->chain.rend(); ++op)
        for (std::int64_t t = 0; t < sh_ * sw_; ++t) {
          const Intrinsic fn = *tt_call(*ir::op_of((*op)->fn));
          if (ops::info(*ir::op_of((*op)->fn)).kind == ops::Kind::scalar)
            x.push_back(call_stmt(fn, {i32(t), scalar_bits((*op)->args[1])}));
          else
            x.push_back(call_stmt(fn, {i32(t)}));
        }
      for (std::int64_t t = 0; t < sh_ * sw_; ++t)
        x.push_back(call_stmt(Intrinsic::pack_tile, {i32(t), cb(cb_c_)}));
      auto [rows, cols] = sub_extent(x, sr, sc);
      x.push_back(call_stmt(Intrinsic::df_write_block,
                            {cb(cb_c_), tensor_ref(mm_.c), sub_first(sr, sc), i32(sh_), i32(sw_),
                             v(mm_.nt), i32(1), rows, cols, i32(sh_ * sw_)}));
      return x;
    }));
    s.push_back(call_stmt(Intrinsic::cb_pop_front, {cb(cb_a_), a_tiles}));
    s.push_back(call_stmt(Intrinsic::cb_pop_front, {cb(cb_b_), b_tiles}));
    return block(std::move(s));
  }

  // A scalar operand as the SFPU call's f32 bits (select-tile-ops' spelling).
  static Expr scalar_bits(const Expr& s) {
    if (const FloatImm* f = as<FloatImm>(s))
      return int_imm(std::bit_cast<std::uint32_t>(static_cast<float>(f->value)), Type::u32());
    return call(Intrinsic::float_bits, {s});
  }

  // A sub-block's partial sums back into DST slots 0 ... sh*sw - 1.
  std::vector<Stmt> reload() {
    const std::int64_t n = sh_ * sw_;
    std::vector<Stmt> s{call_stmt(Intrinsic::cb_wait_front, {cb(cb_p_), i32(n)})};
    for (std::int64_t t = 0; t < n; ++t)
      s.push_back(call_stmt(Intrinsic::copy_tile, {cb(cb_p_), i32(t), i32(t)}));
    s.push_back(call_stmt(Intrinsic::cb_pop_front, {cb(cb_p_), i32(n)}));
    return s;
  }

  // `for sr in 0 .. sub_down { for sc in 0 .. sub_across { body(sr, sc) } }`: the block's
  // sub-blocks inside C, the same count in every K step, so the partial sums balance, and in the
  // writer, which drains C's CB sub-block by sub-block.
  template <class F>
  Stmt sub_blocks(F body) {
    std::string sr = names_.fresh("sr"), sc = names_.fresh("sc");
    Stmt in = for_loop(sc, i32(0), v(sub_across_), ForRole::serial, block(body(v(sr), v(sc))));
    return for_loop(sr, i32(0), v(sub_down_), ForRole::serial, block({in}));
  }
};

} // namespace

ir::Module block_matmul(const ir::Module& m, Diagnostics& diags) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    if (!p.blocking)
      continue;
    std::optional<tt::MatmulPattern> mm = tt::match_matmul(p);
    if (!mm)
      throw InternalError("internal error: block-matmul: program '" + p.name +
                          "' has blocking attributes but is not the matmul pattern");
    Blocked(p, *mm, diags).run();
  }
  return out;
}

} // namespace tk::lower
