#include "lowering/tt/choose_blocks.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"
#include "lowering/tt/target.hpp"

#include <tk_emulator/timing_params.hpp>

#include <algorithm>

namespace tk::lower {

namespace {

using namespace tk::ir;

bool is_var(const Expr& e, const std::string& name) {
  const Var* v = as<Var>(e);
  return v && v->name == name;
}

bool from_zero(const For& f) {
  const IntImm* i = as<IntImm>(f.min);
  return i && i->value == 0;
}

// The L1 shares of the blocked matmul's CBs, in bytes: A and B 256 KiB each (two blocks each),
// the partial sums 512 KiB (a whole block); what is left of the architecture's CB budget
// (ArchSpec, arch/) holds the output CB.
// bf16 pages give the SDK example's 128 / 128 / 256 tiles.
constexpr std::int64_t kShareA = 256 * 1024, kShareB = 256 * 1024, kSharePartials = 512 * 1024;

// The inputs an element-wise epilogue of `acc` reads: row vectors at [0, j] (a bias) and tiles
// of C's shape at C's own indices (a residual); nullopt when the stored value is no such
// expression (a reduction, a matmul, a transpose, a mask, another load).
struct EpilogueInputs {
  std::vector<std::string> rows, tiles;
};
std::optional<EpilogueInputs> epilogue_inputs(const Program& p, const Store& st,
                                              const std::string& acc, const std::string& j) {
  struct Walk : Visitor {
    const Program& p;
    const Store& st;
    const std::string &acc, &j;
    bool ok = true, uses_acc = false;
    EpilogueInputs in;
    Walk(const Program& prog, const Store& s, const std::string& a, const std::string& jj)
        : p(prog), st(s), acc(a), j(jj) {}
    void visit_node(const Var& v) override {
      if (v.type.is_tile())
        uses_acc |= v.name == acc, ok &= v.name == acc;
    }
    void visit_node(const Load& l) override {
      const Tensor* t = p.find_tensor(l.tensor);
      const Tensor* c = p.find_tensor(st.tensor);
      if (!t || !c || t->role != TensorRole::input) {
        ok = false;
        return;
      }
      const IntImm* zero = l.indices.size() == 2 ? as<IntImm>(l.indices[0]) : nullptr;
      const bool row = t->dims.size() == 2 && t->dims[0].name.empty() && t->dims[0].size == 1 &&
                       zero && zero->value == 0 && is_var(l.indices[1], j);
      bool tile = l.indices.size() == st.indices.size() && t->dims.size() == c->dims.size();
      for (std::size_t n = 0; tile && n < l.indices.size(); ++n)
        tile = print(l.indices[n]) == print(st.indices[n]) && t->dims[n].name == c->dims[n].name &&
               t->dims[n].size == c->dims[n].size;
      ok &= row || tile;
      std::vector<std::string>& list = row ? in.rows : in.tiles;
      if (ok && std::find(list.begin(), list.end(), l.tensor) == list.end())
        list.push_back(l.tensor);
    }
    void visit_node(const Call& c) override {
      const std::optional<ops::Op> op = ir::op_of(c.fn);
      const ops::Kind k = op ? ops::info(*op).kind : ops::Kind::matmul;
      ok &= k == ops::Kind::unary || k == ops::Kind::scalar || k == ops::Kind::binary ||
            (k == ops::Kind::broadcast && c.fn == Intrinsic::tile_bcast_row);
      Visitor::visit_node(c);
    }
  } w(p, st, acc, j);
  w.visit(st.value);
  if (!w.ok || !w.uses_acc)
    return std::nullopt;
  return w.in;
}

} // namespace

namespace tt {

std::optional<MatmulPattern> match_matmul(const Program& p) {
  const Function* k = ir::find_function(p, FuncKind::kernel);
  if (!k || p.tensors.size() < 3)
    return std::nullopt;
  const std::vector<Stmt>& top = as<Block>(k->body)->stmts;
  if (top.empty())
    return std::nullopt;
  for (std::size_t n = 0; n + 1 < top.size(); ++n) {
    const Decl* d = as<Decl>(top[n]);
    if (!d || !d->type.is_int())
      return std::nullopt;
  }
  // The parallel nest: [b,] i, j, each the only statement of the one outside it.
  Stmt nest_body;
  const std::vector<const For*> nest = ir::parallel_nest(top.back(), nest_body);
  if (nest.size() < 2 || nest.size() > 3 ||
      !std::all_of(nest.begin(), nest.end(), [](const For* f) { return from_zero(*f); }))
    return std::nullopt;
  if (nest.size() == 3 && !as<Var>(nest[0]->extent))
    return std::nullopt; // the batch loop runs over a size parameter
  const For* fb = nest.size() == 3 ? nest[0] : nullptr;
  const For* fi = nest[nest.size() - 2];
  const For* fj = nest.back();
  const std::vector<Stmt>& bj = as<Block>(fj->body)->stmts;
  if (bj.size() != 3)
    return std::nullopt;
  const Decl* acc = as<Decl>(bj[0]);
  const For* fk = as<For>(bj[1]);
  const Store* st = as<Store>(bj[2]);
  if (!acc || !fk || !st || !acc->type.is_tile())
    return std::nullopt;
  const Call* zero = as<Call>(acc->value);
  if (!zero || zero->fn != Intrinsic::tile_zeros || fk->role != ForRole::reduction ||
      !from_zero(*fk))
    return std::nullopt;
  const std::vector<Stmt>& bk = as<Block>(fk->body)->stmts;
  const Assign* up = bk.size() == 1 ? as<Assign>(bk[0]) : nullptr;
  const Call* mm = up ? as<Call>(up->value) : nullptr;
  if (!up || up->name != acc->name || !mm || mm->fn != Intrinsic::tile_matmul_acc ||
      !is_var(mm->args[0], acc->name))
    return std::nullopt;
  // A[i, k] (A[b, i, k] in a batch); B[k, j], or B^T: transpose(B[j, k]) with B stored [N, K];
  // in a batch B[b, k, j] (B[b, j, k]), or one B for every matrix of the batch.
  const Load* la = as<Load>(mm->args[1]);
  const Call* tr = as<Call>(mm->args[2]);
  const bool transpose_b = tr && tr->fn == Intrinsic::tile_transpose;
  const Load* lb = as<Load>(transpose_b ? tr->args[0] : mm->args[2]);
  const std::size_t rank = fb ? 3 : 2;
  if (!la || !lb || la->tensor == lb->tensor || la->indices.size() != rank ||
      st->indices.size() != rank || (lb->indices.size() != rank && lb->indices.size() != 2))
    return std::nullopt;
  const bool b_batched = lb->indices.size() == 3;
  if (fb && (!is_var(la->indices[0], fb->var) || !is_var(st->indices[0], fb->var) ||
             (b_batched && !is_var(lb->indices[0], fb->var))))
    return std::nullopt;
  const std::size_t oa = rank - 2, ob = lb->indices.size() - 2; // the batch index comes first
  std::optional<EpilogueInputs> inputs = epilogue_inputs(p, *st, acc->name, fj->var);
  if (!inputs)
    return std::nullopt;
  const std::string &i = fi->var, &j = fj->var, &kk = fk->var;
  const std::string &b_row = transpose_b ? j : kk, &b_col = transpose_b ? kk : j;
  if (!is_var(la->indices[oa], i) || !is_var(la->indices[oa + 1], kk) ||
      !is_var(lb->indices[ob], b_row) || !is_var(lb->indices[ob + 1], b_col) ||
      !is_var(st->indices[oa], i) || !is_var(st->indices[oa + 1], j))
    return std::nullopt;
  for (const std::vector<std::string>* list : {&inputs->rows, &inputs->tiles})
    for (const std::string& r : *list)
      if (r == la->tensor || r == lb->tensor || r == st->tensor)
        return std::nullopt;
  if (p.tensors.size() != 3 + inputs->rows.size() + inputs->tiles.size())
    return std::nullopt;
  const Tensor* ta = p.find_tensor(la->tensor);
  const Tensor* tb = p.find_tensor(lb->tensor);
  const Tensor* tc = p.find_tensor(st->tensor);
  if (!ta || !tb || !tc || ta->dims.size() != rank || tb->dims.size() != lb->indices.size() ||
      tc->dims.size() != rank || tc->role != TensorRole::output)
    return std::nullopt;
  // The loops walk exactly the tiles of the tensors' dimensions (and the batch loop its size).
  std::map<std::string, std::string> tc_vars = ir::tile_count_vars(*k);
  auto tiles = [&](const Dim& d) { return ir::tiles_of(d, tc_vars); };
  const Var* mt = as<Var>(fi->extent);
  const Var* kt = as<Var>(fk->extent);
  const Var* nt = as<Var>(fj->extent);
  if (!mt || !kt || !nt || print(fi->extent) != print(tiles(ta->dims[oa])) ||
      print(fk->extent) != print(tiles(ta->dims[oa + 1])) ||
      print(fk->extent) != print(tiles(tb->dims[ob + (transpose_b ? 1 : 0)])) ||
      print(fj->extent) != print(tiles(tb->dims[ob + (transpose_b ? 0 : 1)])) ||
      print(fi->extent) != print(tiles(tc->dims[oa])) ||
      print(fj->extent) != print(tiles(tc->dims[oa + 1])))
    return std::nullopt;
  if (fb) {
    auto size = [](const Dim& d) { return d.name.empty() ? std::to_string(d.size) : d.name; };
    const std::string batch = print(fb->extent);
    if (size(ta->dims[0]) != batch || size(tc->dims[0]) != batch ||
        (b_batched && size(tb->dims[0]) != batch))
      return std::nullopt;
  }
  MatmulPattern m{ta->name, tb->name, tc->name, i,         j,         kk,           mt->name,
                  kt->name, nt->name, fi,       st->value, acc->name, inputs->rows, transpose_b};
  m.tiles = inputs->tiles;
  if (fb) {
    m.batch = fb->var;
    m.batch_size = print(fb->extent);
    m.outer = fb;
    m.b_batched = b_batched;
  }
  return m;
}

} // namespace tt

ir::Module choose_blocks(const ir::Module& m, Diagnostics& diags) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    std::optional<tt::MatmulPattern> mm = tt::match_matmul(p);
    const ir::Options& opts = tt::options(p);
    const bool fixed = opts.matmul_rows > 0; // @options(matmul_block = RxC)
    if (!mm) {
      if (fixed)
        diags.error(p.loc.range, "kernel '" + p.name +
                                     "': option matmul_block applies only to a plain matmul, "
                                     "acc = zeros(); for k { acc += A[i, k] @ B[k, j] } (or "
                                     "@ transpose(B[j, k])); "
                                     "C[i, j] = f(acc), f element-wise over acc, row vectors "
                                     "read at [0, j] and tiles read at [i, j]; this kernel is not "
                                     "one");
      continue;
    }
    // DST holds fp32 in every matmul (tt::decide_dst_fp32), half the tiles of a 16-bit DST
    // (arch::ArchSpec::dst_tiles): a sub-block of two rows of dst / 2 tiles.
    const std::int64_t dst = tt::dst_capacity(p, true);
    const std::int64_t sub_rows = 2, sub_cols = dst / 2;
    auto page = [&](const std::string& t) { return p.find_tensor(t)->layout->page_size; };
    // Even, so that a K step takes exactly half of the CB of A or B (block-matmul).
    const std::int64_t cap_a = kShareA / page(mm->a) / 2 * 2, cap_b = kShareB / page(mm->b) / 2 * 2;
    const std::int64_t page_p = tile_bytes(tt::kPartialsDtype);
    const std::int64_t cap_p = kSharePartials / page_p;
    auto n = [](std::int64_t v) { return std::to_string(v); };
    // What the block rule weighs, from the timing model's figures (the program's architecture):
    // a tile product at the kernel's fidelity (a 2x2 sub-block's matmul_block call, operand
    // delivery included, over its four products), a partial sum's pack and copy back, a core's
    // multicast and what the chip's DRAM reads deliver together.
    namespace timing = rt::emu::timing;
    const timing::Arch& arch = tt::arch_of(p);
    const int phases =
        static_cast<int>(tt::math_fidelity_option(p).value_or(MathFidelity::hifi4)) + 1;
    const auto cycles = [](double v) { return static_cast<std::int64_t>(v + 0.5); };
    const std::int64_t product =
        cycles(timing::matmul_call_cycles(arch, phases, sub_rows, sub_cols,
                                          static_cast<double>(page(mm->a)),
                                          static_cast<double>(page(mm->b))) /
               static_cast<double>(sub_rows * sub_cols));
    // A partial sum's round trip between K steps, on the unpack/math thread that the products
    // run on: its copy back and its share of the calls block-matmul writes there around each
    // sub-block (two data-format reconfigurations, the copy's and the matmul's init, two
    // tile_regs_* hand-overs, the partials CB's wait and pop). Its pack, and the pack thread's
    // hand-overs and CB calls, overlap the next sub-block's products (docs/timing.md, "The pack
    // thread"): a sub-block's pack-thread work (4 packs of a Float32 page and 4 calls) is shorter
    // than its products for any depth. The copy back is priced with its unpack: the partials CB
    // is Float32 and read by copy_tile alone in an fp32 DST, so it is unpacked to DST
    // (tt::unpack_to_dest_fp32; timing::fpu_call_cycles, as the emulator charges it).
    const std::int64_t round_trip = cycles(
        timing::fpu_call_cycles(arch, timing::TileOp::Copy, phases,
                                {timing::Fetch::Tile, static_cast<double>(page_p)}, {}, true) +
        (4 * arch.init_call.value + 2 * arch.dst_handoff.value + 2 * arch.sync_call.value) /
            static_cast<double>(sub_rows * sub_cols));
    const std::int64_t sender = cycles(arch.mcast_bytes_per_cycle.value);
    const std::int64_t dram = cycles(arch.dram_read_total_bytes_per_cycle.value);
    // A sender's K step: its reads arrive through its port, and it multicasts them once their
    // barrier returns, so a step waits for a DRAM read's latency and then a multicast's.
    const std::int64_t read = cycles(arch.port_read_bytes_per_cycle.value);
    const std::int64_t step_latency =
        cycles(arch.dram_read_latency.value + arch.mcast_latency.value);
    // C's writes: the writer drains each finished block through its port, on the other NoC than
    // A's and B's reads (B stays with the reader: block-matmul), into that NoC's DRAM queue,
    // which the model gives writes at the reads' rate (docs/timing.md, "Writes on the same
    // queue"): `dram` again. What is left of C after the last products is the rule's drain.
    const std::int64_t write = cycles(arch.port_write_bytes_per_cycle.value);
    if (fixed) { // the DSL checked whole sub-blocks; the CBs must hold it
      const std::int64_t rows = opts.matmul_rows, cols = opts.matmul_cols;
      if (rows * cols > cap_p || 2 * rows > cap_a || 2 * cols > cap_b) {
        diags.error(p.loc.range, "kernel '" + p.name + "': matmul_block " + n(rows) + "x" +
                                     n(cols) + " does not fit L1: at most " + n(cap_p) +
                                     " output tiles (" + n(cap_a / 2) + " rows, " + n(cap_b / 2) +
                                     " columns) for this kernel's tile sizes");
        continue;
      }
    }
    ir::Blocking& b = p.blocking.emplace();
    b.sub_rows = sub_rows;
    b.sub_cols = sub_cols;
    b.cap_a = cap_a;
    b.cap_b = cap_b;
    b.cap_partials = cap_p;
    b.costs = {.product = product,
               .round_trip = round_trip,
               .multicast = sender,
               .dram = dram,
               .page_a = page(mm->a),
               .page_b = page(mm->b),
               .read = read,
               .step_latency = step_latency,
               .page_c = page(mm->c),
               .write = write};
    b.why =
        "C = A @ B reads a row of A and a column of B per output tile; blocked, a core reads a "
        "block of A and of B once per K step and reuses them for a whole block of C. The DST "
        "sub-block is " +
        n(sub_rows) + "x" + n(sub_cols) + " (" + n(dst) + " fp32 tiles fit DST); the CBs hold " +
        n(cap_a) + " tiles of A and " + n(cap_b) + " of B (two blocks each, " + n(kShareA / 1024) +
        " KiB each) and " + n(cap_p) + " partial sums (" + n(kSharePartials / 1024) +
        " KiB, one block of C). The block's rows, columns and depth follow from the shape at run "
        "time (tt.matmul_block): the least time of a pipeline whose K steps each deliver the "
        "blocks (the larger of the corner core's reads at " +
        n(read) + " B/cycle and multicasts at " + n(sender) + " B/cycle, " + n(step_latency) +
        " cycles of latency a step, and the DRAM's reads at " + n(dram) +
        " B/cycle) while computing the step before (a product " + n(product) +
        " cycles, a partial sum's copy back and the calls around it " + n(round_trip) +
        "), plus the drain of the tiles of C the last round leaves after its products (at the "
        "DRAM's " +
        n(dram) + " B/cycle for every writer of the grid together, or a core's writes at " +
        n(write) + " B/cycle); on a tie the fewest DRAM reads";
    if (fixed)
      b.why += "; @options(matmul_block = " + n(opts.matmul_rows) + "x" + n(opts.matmul_cols) +
               ") fixes the block, the depth still follows";
  }
  return out;
}

} // namespace tk::lower
