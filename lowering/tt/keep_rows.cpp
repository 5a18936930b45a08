#include "lowering/tt/keep_rows.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/substitute.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/tt/row_cbs.hpp"
#include "lowering/tt/row_walks.hpp"
#include "lowering/tt/target.hpp"

#include <algorithm>
#include <cmath>

namespace tk::lower {

namespace {

using namespace tk::ir;

// The L1 share of the rows kept: a work item's rows double-buffered (the next work item's row
// arrives while compute works on this one), the rows shared by every work item once. It leaves
// at least kOtherShare of the arch's CB budget to the streams, the outputs and the intermediates.
constexpr std::int64_t kRowShare = 1024 * 1024;
constexpr std::int64_t kOtherShare = 256 * 1024;

// The chunk rule's cycles of the first walk's work per tile of a kept row (below): an
// assumption, 256 (32 rows of 8 instructions; the timing model's assumed figure for an SFPU
// function until every SFPU call had its own table entry). Pricing the walk's own calls needs the
// SDK calls select-tile-ops chooses after this stage (a walk's max is binary_max_tile at 122
// cycles, its sum an FPU add at 8, softmax's exp at 1161 or 2350: docs/timing.md); not done.
constexpr double kWalkTileCycles = 256;

bool is_zero(const Expr& e) {
  const IntImm* i = as<IntImm>(e);
  return i && i->value == 0;
}

// Every load of a tensor in a statement.
struct Loads : Visitor {
  std::string tensor;
  std::vector<const Load*> found;
  void visit_node(const Load& l) override {
    if (l.tensor == tensor)
      found.push_back(&l);
    Visitor::visit_node(l);
  }
};

// The names a statement binds: lets, assignments, loop variables.
struct Bound : Visitor {
  std::set<std::string> names;
  void visit_node(const Decl& d) override {
    names.insert(d.name);
    Visitor::visit_node(d);
  }
  void visit_node(const Assign& a) override {
    names.insert(a.name);
    Visitor::visit_node(a);
  }
  void visit_node(const For& f) override {
    names.insert(f.var);
    Visitor::visit_node(f);
  }
};

// Loads of `tensor` at [row, j] become the tile at index j - offset of `cb` (offset: the first
// tile of the row the CB holds, null for 0).
struct FromCb : Mutator {
  std::string tensor, cb;
  Expr offset;
  Expr mutate_node(const Load& l, const Expr& self) override {
    if (l.tensor != tensor)
      return Mutator::mutate_node(l, self);
    return call(Intrinsic::cb_tile, {cb_ref(cb), offset ? l.indices[1] - offset : l.indices[1]},
                l.loc.range);
  }
};

// Every read of a variable replaced by an expression.
// Every output tensor a statement stores.
struct Stores : Visitor {
  std::set<std::string> tensors;
  void visit_node(const Store& st) override {
    tensors.insert(st.tensor);
    Visitor::visit_node(st);
  }
};

class Rows {
public:
  Rows(Program& p, Function& k) : p_(p), k_(k) {}

  void run() {
    std::vector<Stmt> top = as<Block>(k_.body)->stmts, out;
    for (const Stmt& s : top) {
      const For* f = as<For>(s);
      if (!f || f->role != ForRole::per_core) {
        out.push_back(s);
        continue;
      }
      std::vector<Stmt> lets;          // sizes: before the per-core loop, computed once on the host
      std::vector<Stmt> before, after; // the shared rows: read once per core, popped at the end
      Stmt body = rewrite(*f, lets, before, after);
      out.insert(out.end(), lets.begin(), lets.end());
      out.insert(out.end(), before.begin(), before.end());
      out.push_back(for_loop(f->var, f->min, f->extent, f->role, body, f->loc.range));
      out.insert(out.end(), after.begin(), after.end());
    }
    k_.body = block(std::move(out));
  }

private:
  Program& p_;
  Function& k_;

  struct Kept {
    const Tensor* tensor;
    Expr row;                    // the tile row of the work item
    std::vector<std::size_t> at; // the loops (statement indices) that read it
    std::string cb;
    std::string cb_writer; // halves: the row's second half, which the writer reads
    bool shared = false;   // the same row for every work item: read once per core
  };

  // T qualifies when at least two top-level loops of `body` read it, all at [row, their j], the
  // row fixed for the work item (it reads no name in `bound`); or, shared, when at least one
  // does and the row is the same for every work item (it reads no name in `outside`: nothing
  // bound in the per-core loop, nor its variable).
  std::optional<Kept> qualifies(const Tensor& t, const Block& body, const Bound& bound,
                                const Bound& outside, bool shared) {
    if (t.role != TensorRole::input || t.dims.size() != 2)
      return std::nullopt;
    Kept kept{&t, nullptr, {}, "", "", shared};
    const Bound& fixed = shared ? outside : bound;
    std::string row, extent;
    for (std::size_t n = 0; n < body.stmts.size(); ++n) {
      Loads loads;
      loads.tensor = t.name;
      loads.visit(body.stmts[n]);
      if (loads.found.empty())
        continue;
      const For* f = as<For>(body.stmts[n]);
      if (!f || !is_zero(f->min))
        return std::nullopt;
      for (const Load* l : loads.found) {
        const Var* j = as<Var>(l->indices[1]);
        std::set<std::string> reads = ir::vars_read(l->indices[0]);
        if (!j || j->name != f->var ||
            std::any_of(reads.begin(), reads.end(),
                        [&](const std::string& v) { return fixed.names.count(v) > 0; }))
          return std::nullopt;
        if (row.empty())
          row = print(l->indices[0]), kept.row = l->indices[0];
        if (print(l->indices[0]) != row)
          return std::nullopt;
      }
      if (extent.empty())
        extent = print(f->extent);
      std::set<std::string> sizes = ir::vars_read(f->extent);
      if (print(f->extent) != extent ||
          std::any_of(sizes.begin(), sizes.end(),
                      [&](const std::string& v) { return outside.names.count(v) > 0; }))
        return std::nullopt;
      kept.at.push_back(n);
    }
    if (kept.at.size() < (shared ? 1u : 2u))
      return std::nullopt;
    return kept;
  }

  Stmt rewrite(const For& core, std::vector<Stmt>& lets, std::vector<Stmt>& before,
               std::vector<Stmt>& after) {
    // The walks with fewer DST sections a tile (row_walks.hpp), before anything reads them.
    ir::NameSet accumulators(p_);
    const Stmt squared = block(tt::fewer_sections(p_, as<Block>(core.body)->stmts, accumulators));
    const Block& body = *as<Block>(squared);
    const Block& unchanged = *as<Block>(core.body); // what a loop that keeps no row returns
    // What varies within the work item: names bound in its loops or assigned anywhere. A row
    // index may read the rest (the core's loop variable, the work item's index lets).
    Bound bound;
    for (const Stmt& x : body.stmts)
      if (as<For>(x) || as<Assign>(x))
        bound.visit(x);
    // A loop extent must be known outside the per-core loop: its lets go before it.
    Bound outside = bound;
    outside.visit(block(body.stmts));
    outside.names.insert(core.var);
    std::vector<Kept> kept;
    for (const Tensor& t : p_.tensors) {
      std::optional<Kept> k = qualifies(t, body, bound, outside, /*shared=*/true);
      if (!k)
        k = qualifies(t, body, bound, outside, /*shared=*/false);
      if (k)
        kept.push_back(*k);
    }
    // A row CB takes an input index: as many rows as there are free ones.
    kept.resize(std::min(kept.size(), tt::free_cb_indices(p_, CBRole::input).size()));
    if (kept.empty())
      return block(unchanged.stmts);
    // Each NoC has its own DRAM queue, which its reads and writes share (docs/timing.md, "Per
    // NoC"). Read by the reader alone and written by the writer alone, a work item's row keeps
    // NoC 0 idle while the first rows arrive and NoC 1 idle while the last are written. In halves,
    // the reader reads the first half of each kept row (NoC 1) and writes the output tiles of the
    // loops over that half, the writer the second half and its outputs (NoC 0): each NoC carries
    // half the reads and half the writes all through the run. It needs a second input CB per row
    // and an output CB per tensor those loops store (the same pages in all: each half holds half
    // the row).
    std::set<std::string> outputs; // stored in a loop that reads a work item's row
    for (const Kept& k : kept)
      if (!k.shared)
        for (std::size_t n : k.at) {
          Stores st;
          st.visit(body.stmts[n]);
          outputs.insert(st.tensors.begin(), st.tensors.end());
        }
    const std::size_t items = static_cast<std::size_t>(
        std::count_if(kept.begin(), kept.end(), [](const Kept& k) { return !k.shared; }));
    const bool halves = items > 0 &&
                        kept.size() + items <= tt::free_cb_indices(p_, CBRole::input).size() &&
                        outputs.size() <= tt::free_cb_indices(p_, CBRole::output).size();
    // One cap for the program, so that a loop reading two kept rows splits at one place.
    std::int64_t pages = 0;
    for (const Kept& k : kept)
      pages += (k.shared ? 1 : 2) * k.tensor->layout->page_size;
    const std::int64_t share = std::min(kRowShare, tt::l1_cb_budget(p_) - kOtherShare);
    std::int64_t cap = share / pages;
    if (cap < 1)
      return block(unchanged.stmts);
    // The reader pushes a work item's row in chunks of `chunk` pages, each as it lands, so that
    // the first walk over the row starts on its first tiles (cb.wait_upto below). Each chunk ends
    // in a read barrier, and as every core reads alike their barriers drain the chip's DRAM
    // queue together: about a read latency lost per chunk, cap / chunk of them for a row of cap
    // tiles. Against that, the first walk's work on the last chunk is left after the row has
    // landed: chunk tiles at kWalkTileCycles each. Their sum is least near
    // chunk = sqrt(cap x latency / cycles): the power of two at or below it, the latency from the
    // arch table (Wormhole: 397 cycles; softmax's cap of 256 tiles: 16 pages, layernorm's 128:
    // 8). cap is then a whole number of chunks.
    std::int64_t chunk = 1;
    if (std::any_of(kept.begin(), kept.end(), [](const Kept& k) { return !k.shared; })) {
      const arch::ArchSpec& a = tt::arch_of(p_);
      const double best =
          std::sqrt(static_cast<double>(cap) * a.dram_read_latency.value / kWalkTileCycles);
      while (2 * chunk <= best && 2 * chunk <= cap)
        chunk *= 2;
      // In halves each half window is whole chunks.
      cap -= cap % (halves ? 2 * chunk : chunk);
      if (cap < 1)
        return block(unchanged.stmts);
    }
    std::map<std::string, std::string> counts = ir::tile_count_vars(k_);
    std::vector<Stmt> head, tail;
    // Per loop extent E, as lets over sizes (the loops' bounds stay plain variables): a shared
    // row keeps `shared_kept = min(E, cap)` tiles (its CB holds cap); a work item's row is
    // double-buffered in windows of cap (`row_double` = 1), or, when it is long enough that the
    // walks' re-reads of its tiles past cap cost more than the lost overlap, kept whole in one
    // window of 2 cap (`row_single` = 1, the next row read once compute is done with this one),
    // `row_kept = min(E, cap * (1 + row_single))` tiles: read once where it fits twice the cap,
    // and streamed past that, instead of re-reading all but cap tiles in every walk.
    struct Split {
      Expr shared_kept, kept, single, twice;
      Expr half; // halves: where a row's second half begins, whole chunks, within a window
    };
    std::map<std::string, Split> split;
    ir::NameSet names(p_);
    auto let = [&](const char* base, Expr value) {
      std::string n = names.fresh(base);
      lets.push_back(decl(n, Type::i32(), std::move(value)));
      return var(n, Type::i32());
    };
    const bool any_item =
        std::any_of(kept.begin(), kept.end(), [](const Kept& k) { return !k.shared; });
    const bool any_shared =
        std::any_of(kept.begin(), kept.end(), [](const Kept& k) { return k.shared; });
    std::int64_t walks = 2; // the most loops that read one work item's row
    for (const Kept& k : kept)
      if (!k.shared)
        walks = std::max(walks, static_cast<std::int64_t>(k.at.size()));
    auto split_of = [&](const Expr& extent) -> const Split& {
      auto [it, fresh] = split.try_emplace(print(extent));
      if (fresh) {
        Split& x = it->second;
        if (any_shared)
          x.shared_kept = let("shared_kept", binary(BinaryOp::min, extent, int_imm(cap)));
        if (any_item) {
          // One window when the tiles past cap, re-read by every walk but the first, are at least
          // a quarter of the row: 4 (walks - 1) (E - cap) >= E. Fitted to the timing model at
          // layernorm 4096 x N (3 walks, cap 128; µs double-buffered / one window): 129 tiles
          // 785 / 1,003, 170 1,692 / 1,429, 192 2,060 / 1,657, 256 3,183 / 2,318, which cross
          // near 148; the rule switches at 147. In u32 as the host computes it: E - min(E, cap)
          // cannot wrap.
          Expr past = extent - binary(BinaryOp::min, extent, int_imm(cap));
          x.single =
              let("row_single",
                  binary(BinaryOp::min, int_imm(4 * (walks - 1)) * past / extent, int_imm(1)));
          x.twice = let("row_double", int_imm(1) - x.single);
          x.kept = let("row_kept",
                       binary(BinaryOp::min, extent, int_imm(cap) + int_imm(cap) * x.single));
          // Half the row kept, rounded up to whole chunks, at most a half's window (cap / 2
          // double-buffered, cap in one window): the rest fits the second half's window too.
          if (halves)
            x.half = let(
                "row_half",
                binary(BinaryOp::min, int_imm(cap / 2) + int_imm(cap / 2) * x.single,
                       (x.kept + int_imm(2 * chunk - 1)) / int_imm(2 * chunk) * int_imm(chunk)));
        }
      }
      return it->second;
    };
    auto once = [&](const Expr& times, Stmt s) { // `for _ in 0 .. times { s }`, times 0 or 1
      return for_loop(names.fresh("row_window"), int_imm(0), times, ForRole::serial,
                      block({std::move(s)}), core.loc.range);
    };
    std::vector<Stmt> waits, head_waits;
    std::map<std::size_t, std::vector<Stmt>> item_waits; // after the walk (statement) of each
    // The first walk takes the rows as they arrive when every work item's row has the same first
    // walk and no tile streamed before the windows' waits in the compute kernel: nothing loaded
    // before that walk, nor in its part where every kept row comes from L1. Otherwise compute
    // would wait for a streamed tile the reader pushes after the windows, and the rows are
    // waited for whole first, as before.
    std::set<std::size_t> firsts;
    std::set<std::string> kept_names;
    for (const Kept& k : kept) {
      kept_names.insert(k.tensor->name);
      if (!k.shared)
        firsts.insert(k.at.front());
    }
    bool progressive = firsts.size() == 1;
    if (progressive) {
      const std::size_t n0 = *firsts.begin();
      for (const Tensor& t : p_.tensors) {
        Loads loads;
        loads.tensor = t.name;
        for (std::size_t n = 0; n < n0; ++n)
          loads.visit(body.stmts[n]);
        if (!kept_names.count(t.name))
          loads.visit(body.stmts[n0]);
        progressive = progressive && loads.found.empty();
      }
    }
    // A work item's double-buffered window is read one work item ahead: the next work item's
    // row while compute works on this one, before this one's outputs are written (the reader
    // and writer write the outputs of their halves, which wait for compute's last walk). Taken
    // when every such row is a function of the per-core loop's variable and of values known
    // before the loop, so that the next work item's row is the same expression at i + 1.
    const bool ahead = any_item && std::all_of(kept.begin(), kept.end(), [&](const Kept& k) {
                         if (k.shared)
                           return true;
                         std::set<std::string> reads = ir::vars_read(k.row);
                         return std::all_of(reads.begin(), reads.end(), [&](const std::string& v) {
                           return v == core.var || !outside.names.count(v);
                         });
                       });
    std::vector<Stmt> prologue;
    const std::string row_next = names.fresh("row_next");
    if (ahead) {
      // 1 while the core has a next work item, else 0 (i32: it multiplies the row's i32 ends).
      const Type u = core.min->type;
      head.push_back(decl(
          row_next, Type::i32(),
          binary(BinaryOp::min, core.min + core.extent - int_imm(1, u) - var(core.var, Type::i32()),
                 int_imm(1, u))));
    }
    for (Kept& k : kept) {
      add_cb(k, cap, halves);
      const Expr cols = ir::tiles_of(k.tensor->dims[1], counts);
      const Split& x = split_of(as<For>(body.stmts[k.at.front()])->extent);
      auto read = [&](Expr valid, std::int64_t window) {
        return evaluate(call(Intrinsic::df_read_block,
                             {cb_ref(k.cb), tensor_ref(k.tensor->name), ir::mul(k.row, cols),
                              int_imm(1), k.shared ? valid : int_imm(window), cols, int_imm(1),
                              int_imm(1), valid, int_imm(window)}));
      };
      auto cb_call = [&](const std::string& cb, Intrinsic fn, std::int64_t window) {
        return evaluate(call(fn, {cb_ref(cb), int_imm(window)}));
      };
      if (k.shared) {
        before.push_back(read(x.shared_kept, cap));
        waits.push_back(cb_call(k.cb, Intrinsic::cb_wait_front, cap));
        after.push_back(cb_call(k.cb, Intrinsic::cb_pop_front, cap));
        continue;
      }
      // The window in chunks, each pushed as it lands, so that the first walk starts on the row's
      // first tiles (`cb.wait_upto` below) while the rest are still on their way.
      // Tiles [offset, end) of the row (offset null: 0) into `cb`, a window of `window` pages.
      auto chunks = [&](const std::string& cb, std::int64_t window, const Expr& offset,
                        const Expr& end, const Expr& row) {
        const std::string c = names.fresh("row_chunk");
        const Expr in_window = var(c, Type::i32()) * int_imm(chunk);
        const Expr at = offset ? offset + in_window : in_window;
        // The chunk's pages of the row (a let: the read's loop then counts to a variable)
        const std::string valid = names.fresh("row_chunk_pages");
        Stmt pages_of = decl(
            valid, Type::i32(),
            binary(BinaryOp::min, binary(BinaryOp::max, end - at, int_imm(0)), int_imm(chunk)));
        Stmt one = evaluate(call(Intrinsic::df_read_block,
                                 {cb_ref(cb), tensor_ref(k.tensor->name), ir::mul(row, cols) + at,
                                  int_imm(1), int_imm(chunk), cols, int_imm(1), int_imm(1),
                                  var(valid, Type::i32()), int_imm(chunk)}));
        return for_loop(c, int_imm(0), int_imm(window / chunk), ForRole::serial,
                        block({std::move(pages_of), std::move(one)}), core.loc.range);
      };
      std::vector<Stmt>& waits_after = progressive ? item_waits[k.at.front()] : head_waits;
      // The double-buffered form, one work item ahead (`ahead`): tiles [offset, end) of the next
      // work item's row into the window after this one's, none past the core's last work item
      // (an empty window, pushed and popped all the same), the first work item's before the loop.
      auto windows = [&](const std::string& cb, std::int64_t window, const Expr& offset,
                         const Expr& end) {
        if (!ahead) {
          head.push_back(once(x.twice, chunks(cb, window, offset, end, k.row)));
          return;
        }
        Substitute first, next;
        first.by[core.var] = core.min;
        next.by[core.var] = var(core.var, Type::i32()) + int_imm(1);
        prologue.push_back(once(x.twice, chunks(cb, window, offset, end, first.mutate(k.row))));
        head.push_back(once(x.twice, chunks(cb, window, offset, end * var(row_next, Type::i32()),
                                            next.mutate(k.row))));
        after.push_back(once(x.twice, cb_call(cb, Intrinsic::cb_wait_front, window)));
        after.push_back(once(x.twice, cb_call(cb, Intrinsic::cb_pop_front, window)));
      };
      if (!halves) {
        windows(k.cb, cap, nullptr, x.kept);
        head.push_back(once(x.single, chunks(k.cb, 2 * cap, nullptr, x.kept, k.row)));
        waits_after.push_back(once(x.twice, cb_call(k.cb, Intrinsic::cb_wait_front, cap)));
        waits_after.push_back(once(x.single, cb_call(k.cb, Intrinsic::cb_wait_front, 2 * cap)));
        tail.push_back(once(x.twice, cb_call(k.cb, Intrinsic::cb_pop_front, cap)));
        tail.push_back(once(x.single, cb_call(k.cb, Intrinsic::cb_pop_front, 2 * cap)));
        continue;
      }
      // Halves: windows of cap / 2 double-buffered, or of cap in one window, in each CB.
      const std::int64_t h = cap / 2;
      // The first half ends at row_half or at the row's end (row_half is rounded up to chunks).
      const Expr first_end = binary(BinaryOp::min, x.half, x.kept);
      windows(k.cb, h, nullptr, first_end);
      windows(k.cb_writer, h, x.half, x.kept);
      head.push_back(once(x.single, chunks(k.cb, cap, nullptr, first_end, k.row)));
      head.push_back(once(x.single, chunks(k.cb_writer, cap, x.half, x.kept, k.row)));
      for (const std::string* cb : {&k.cb, &k.cb_writer}) {
        waits_after.push_back(once(x.twice, cb_call(*cb, Intrinsic::cb_wait_front, h)));
        waits_after.push_back(once(x.single, cb_call(*cb, Intrinsic::cb_wait_front, cap)));
        tail.push_back(once(x.twice, cb_call(*cb, Intrinsic::cb_pop_front, h)));
        tail.push_back(once(x.single, cb_call(*cb, Intrinsic::cb_pop_front, cap)));
      }
    }
    // The output CBs the reader drains, one per tensor stored beside a row's first half.
    const Kept* first_item = nullptr;
    for (const Kept& k : kept)
      if (!k.shared && !first_item)
        first_item = &k;
    if (halves)
      for (const std::string& t : outputs)
        add_output_cb(t, first_item->cb);
    before.insert(before.end(), waits.begin(), waits.end());
    before.insert(before.end(), prologue.begin(), prologue.end());
    head.insert(head.end(), head_waits.begin(), head_waits.end());
    std::vector<Stmt> out = head;
    std::map<std::string, Expr> mids; // halves: where a segment's second half begins, per bounds
    for (std::size_t n = 0; n < body.stmts.size(); ++n) {
      std::vector<const Kept*> item, shared;
      for (const Kept& k : kept)
        if (std::find(k.at.begin(), k.at.end(), n) != k.at.end())
          (k.shared ? shared : item).push_back(&k);
      if (item.empty() && shared.empty()) {
        out.push_back(body.stmts[n]);
        continue;
      }
      const For& f = *as<For>(body.stmts[n]);
      // second: a work item's row from its second half's CB (halves), at j - half.
      auto from_cbs = [&](const std::vector<const Kept*>& ks, Stmt s, bool second = false) {
        for (const Kept* k : ks) {
          FromCb from;
          from.tensor = k->tensor->name;
          from.cb = second && !k->shared ? k->cb_writer : k->cb;
          if (second && !k->shared)
            from.offset = split_of(f.extent).half;
          s = from.mutate(s);
        }
        return s;
      };
      // The first walk over a work item's row waits for its tile j as it arrives, j + 1 pages
      // from the front (cumulative, as ttnn's layernorm_pre_allgather.cpp compute kernel waits
      // `cb_wait_front(cb_inp, wt + blk)`, tt-metal a8c5af0f5a26); its window's one wait, which
      // balances the reader's pushes, follows the walk, before the tiles it streams.
      auto arriving = [&](const std::vector<const Kept*>& ks, Stmt s, bool second = false) {
        std::vector<Stmt> waited;
        const Expr j = var(f.var, Type::i32());
        for (const Kept* k : ks)
          if (progressive && k->at.front() == n && !k->shared)
            waited.push_back(evaluate(
                call(Intrinsic::cb_wait_upto,
                     {cb_ref(second ? k->cb_writer : k->cb),
                      second ? j - split_of(f.extent).half + int_imm(1) : j + int_imm(1)})));
        if (waited.empty())
          return s;
        for (const Stmt& x : as<Block>(s)->stmts)
          waited.push_back(x);
        return block(std::move(waited));
      };
      const Split& x = split_of(f.extent);
      std::vector<const Kept*> all = item;
      all.insert(all.end(), shared.begin(), shared.end());
      // [0, first): every row from its CB; [first, last): the work item's rows from theirs, the
      // shared ones loaded (a row longer than the shared cap); [last, E): every row loaded.
      const Expr first = shared.empty() ? x.kept : x.shared_kept;
      const Expr last = item.empty() ? x.shared_kept : x.kept;
      // [lo, hi) from the CBs of `ks`; in halves, split where the rows' second halves begin:
      // [lo, mid) from the reader's CBs, [mid, hi) from the writer's.
      auto segment = [&](const std::vector<const Kept*>& ks, const Expr& lo, const Expr& hi,
                         bool as_they_land) {
        auto walk = [&](bool second) {
          Stmt s = from_cbs(ks, f.body, second);
          return as_they_land ? arriving(ks, s, second) : s;
        };
        if (!halves || item.empty()) {
          out.push_back(for_loop(f.var, lo, hi - lo, f.role, walk(false), f.loc.range));
          return;
        }
        const Expr& half = split_of(f.extent).half;
        Expr mid = binary(BinaryOp::min, half, hi);
        if (!is_zero(lo))
          mid = binary(BinaryOp::max, lo, mid);
        const std::string key = print(mid);
        auto [m, fresh] = mids.try_emplace(key);
        if (fresh)
          m->second = let("row_mid", mid);
        out.push_back(for_loop(f.var, lo, is_zero(lo) ? m->second : m->second - lo, f.role,
                               walk(false), f.loc.range));
        out.push_back(for_loop(f.var, m->second, hi - m->second, f.role, walk(true), f.loc.range));
      };
      segment(all, f.min, first, true);
      // The window's wait before any tile this walk streams (the reader pushed the window
      // before them): a shared row's tiles past shared_kept, or the row's past row_kept.
      if (auto w = item_waits.find(n); w != item_waits.end())
        out.insert(out.end(), w->second.begin(), w->second.end());
      if (!item.empty() && !shared.empty())
        segment(item, first, last, false);
      out.push_back(for_loop(f.var, last, f.extent - last, f.role, f.body, f.loc.range));
    }
    out.insert(out.end(), tail.begin(), tail.end());
    return block(std::move(out));
  }

  // The row's CB: one window of cap pages for a shared row, two for a work item's (rewrite left
  // an input index per kept row); in halves, a work item's row in two CBs of cap pages, the
  // second filled by the writer.
  void add_cb(Kept& k, std::int64_t cap, bool halves) {
    ir::NameSet names(p_);
    const bool split = halves && !k.shared;
    k.cb = tt::add_row_cb(p_, names, k.tensor->name, "_row", (k.shared || split ? 1 : 2) * cap,
                          "keep-rows");
    if (!split)
      return;
    k.cb_writer = tt::add_row_cb(p_, names, k.tensor->name, "_row_w", cap, "keep-rows");
    p_.cbs.back().read_by_writer = true;
  }

  // An output CB of `tensor` the reader drains: the stores beside the first half of row CB `cb`.
  void add_output_cb(const std::string& tensor, const std::string& cb) {
    ir::NameSet names(p_);
    const CircularBuffer* stream = nullptr;
    for (const CircularBuffer& c : p_.cbs)
      if (c.tensor == tensor && c.role == CBRole::output && !stream)
        stream = &c;
    if (!stream)
      throw InternalError("internal error: keep-rows: no output CB for '" + tensor + "'");
    CircularBuffer c = *stream;
    c.name = names.fresh("cb_" + tensor + "_by_reader");
    c.index = tt::free_cb_indices(p_, CBRole::output).front();
    c.reader_writes_for = cb;
    p_.cbs.push_back(c);
  }
};

} // namespace

ir::Module keep_rows(const ir::Module& m, Diagnostics&) {
  return tt::on_unblocked_kernels(m, [](Program& p, Function& k) { Rows(p, k).run(); });
}

} // namespace tk::lower
