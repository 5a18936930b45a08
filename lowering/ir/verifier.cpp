#include "lowering/ir/verifier.hpp"

#include "arch/arch.hpp"
#include "lowering/ir/printer.hpp"
#include "lowering/ir/verifier_internal.hpp"
#include "support/diagnostics.hpp"

#include <algorithm>
#include <set>

namespace tk::ir {

using namespace verifier;

namespace {

// A kernel config belongs to a reader, compute or writer, with the config of its kind; its
// compile-time args name accessors.
void check_config(const Program& p, const Function& f) {
  const KernelConfig& c = *f.config;
  bool data_movement = f.kind == FuncKind::reader || f.kind == FuncKind::writer;
  if (!data_movement && f.kind != FuncKind::compute)
    fail("a " + std::string(to_string(f.kind)) + " function has a kernel config");
  if (c.data_movement && !data_movement)
    fail("a compute kernel has a data-movement config (processor, noc)");
  if (c.compute && f.kind != FuncKind::compute)
    fail("a " + std::string(to_string(f.kind)) + " has a compute config (math_fidelity, ...)");
  std::set<std::string> seen;
  for (const CompileArg& a : c.compile_args) {
    if (!p.find_accessor(a.tensor))
      fail("compile-time args of " + q(a.tensor) + ", which has no accessor");
    if (!seen.insert(a.tensor).second)
      fail("compile-time args of " + q(a.tensor) + " twice");
  }
}

// The plan names the program's host function's lets, its tensors and its kernels.
void check_host_plan(const Program& p, const HostPlan& h) {
  const Function* host = nullptr;
  for (const Function& f : p.functions)
    if (f.kind == FuncKind::host) {
      if (host)
        fail("two host functions: " + q(host->name) + " and " + q(f.name));
      host = &f;
    }
  if (!host)
    fail("a host plan without a host function");
  std::set<std::string> lets;
  if (const Block* b = as<Block>(host->body))
    for (const Stmt& s : b->stmts)
      if (const Decl* d = as<Decl>(s))
        lets.insert(d->name);
  auto let = [&](const std::string& name, const std::string& what) {
    if (!lets.count(name))
      fail("the host plan's " + what + " " + q(name) + " is no let of " + q(host->name));
  };
  let(h.work_items, "work-item count");
  if (h.per_core && h.core_grid)
    fail("the host plan has both per_core values and a core_grid");
  if (h.core_grid && h.split != WorkSplit::core_grid)
    fail("the host plan has a core_grid but splits the work with " +
         std::string(to_string(h.split)));
  if (h.core_grid) {
    let(h.core_grid->across, "items across");
    let(h.core_grid->down, "items down");
  }
  if (h.grid.x <= 0 || h.grid.y <= 0)
    fail("the host plan's grid is empty");
  std::set<std::string> seen;
  for (const HostBuffer& b : h.buffers) {
    if (!p.find_tensor(b.tensor))
      fail("the host plan has a buffer of unknown tensor " + q(b.tensor));
    if (!seen.insert(b.tensor).second)
      fail("the host plan has two buffers of tensor " + q(b.tensor));
    if (!b.size.empty())
      let(b.size, "size of buffer");
    if (b.page_size < 0)
      fail("the buffer of " + q(b.tensor) + " has a negative page size");
  }
  seen.clear();
  for (const std::string& k : h.kernels) {
    const Function* f = nullptr;
    for (const Function& g : p.functions)
      if (g.name == k)
        f = &g;
    if (!f || (f->kind != FuncKind::reader && f->kind != FuncKind::compute &&
               f->kind != FuncKind::writer))
      fail("the host plan launches " + q(k) + ", which is no reader, compute or writer function");
    if (!seen.insert(k).second)
      fail("the host plan launches " + q(k) + " twice");
  }
}

// The options name a known architecture and a grid and block that fit it; choose-blocks' decision
// fits the architecture's DST (fp32, as every blocked matmul's) and CBs (docs/ir.md, "Programs").
void check_options(const Program& p) {
  const Options o = p.options.value_or(Options{});
  const arch::ArchSpec* a = o.arch.empty() ? &arch::default_arch() : arch::find(o.arch);
  if (a == nullptr)
    fail("the options name an unknown architecture " + q(o.arch) + "; the known ones are " +
         arch::names());
  if (o.grid && (o.grid->x < 1 || o.grid->y < 1 || o.grid->x > std::int64_t{a->grid_x} ||
                 o.grid->y > std::int64_t{a->grid_y}))
    fail("the options' grid " + std::to_string(o.grid->x) + "x" + std::to_string(o.grid->y) +
         " does not fit " + arch::describe(*a));
  if (o.cb_depth < 1)
    fail("the options' cb_depth " + std::to_string(o.cb_depth) + " is not positive");
  if (o.q_chunk < 0)
    fail("the options' q_chunk " + std::to_string(o.q_chunk) + " is negative");
  if ((o.matmul_rows > 0) != (o.matmul_cols > 0) || o.matmul_rows < 0 || o.matmul_cols < 0)
    fail("the options' matmul_block " + std::to_string(o.matmul_rows) + "x" +
         std::to_string(o.matmul_cols) + " is not a block of output tiles");
  if (!p.blocking)
    return;
  const Blocking& b = *p.blocking;
  auto n = [](std::int64_t v) { return std::to_string(v); };
  const std::int64_t dst = a->dst_tiles(true);
  if (b.sub_rows < 1 || b.sub_cols < 1 || b.sub_rows * b.sub_cols > dst)
    fail("the blocking's sub-block " + n(b.sub_rows) + "x" + n(b.sub_cols) + " does not fit the " +
         n(dst) + " fp32 tiles of DST on " + std::string(a->name));
  if (b.cap_a < 2 || b.cap_b < 2 || b.cap_a % 2 || b.cap_b % 2)
    fail("the blocking's CBs of A and B hold " + n(b.cap_a) + " and " + n(b.cap_b) +
         " tiles; each must hold two K steps' blocks (an even count)");
  if (b.cap_partials < b.sub_rows * b.sub_cols)
    fail("the blocking's partial sums (" + n(b.cap_partials) + " tiles) do not hold a sub-block");
  if (o.matmul_rows > 0 && (o.matmul_rows % b.sub_rows || o.matmul_cols % b.sub_cols ||
                            o.matmul_rows * o.matmul_cols > b.cap_partials ||
                            2 * o.matmul_rows > b.cap_a || 2 * o.matmul_cols > b.cap_b))
    fail("the options' matmul_block " + n(o.matmul_rows) + "x" + n(o.matmul_cols) +
         " is not whole " + n(b.sub_rows) + "x" + n(b.sub_cols) +
         " sub-blocks within the blocking's CBs");
  const Blocking::Costs& c = b.costs;
  for (std::int64_t x : {c.product, c.round_trip, c.multicast, c.dram, c.page_a, c.page_b, c.read,
                         c.page_c, c.write})
    if (x <= 0)
      fail("the blocking's costs must be positive (rates, pages and cycles)");
  if (c.step_latency < 0)
    fail("the blocking's step latency is negative");
}

/// materialise's decision: a value, a reason, and for `dram` the scratch tensor the program
/// writes (recomputing has none).
void check_materialise(const Program& p) {
  if (!p.materialise)
    return;
  const Materialise& m = *p.materialise;
  if (m.value.empty() || m.why.empty())
    fail("the materialise decision names no value or gives no reason");
  if (m.choice == Materialise::Choice::recompute) {
    if (!m.tensor.empty())
      fail("the materialise decision recomputes " + q(m.value) + " but names a scratch tensor " +
           q(m.tensor));
    return;
  }
  const Tensor* t = p.find_tensor(m.tensor);
  if (!t || t->role != TensorRole::output)
    fail("the materialise decision's scratch tensor " + q(m.tensor) + " is not an output of " +
         q(p.name));
}

// The typed header fields grouped_dims (to-tile-ir) and rows (select-tile-ops).
void check_groups_and_rows(const Program& p) {
  for (const GroupedDim& g : p.grouped_dims)
    if (g.outer.empty() || g.inner.empty() || g.outer == g.inner || g.ratio < 1)
      fail("program " + q(p.name) + " groups dimension " + q(g.outer) + " as " +
           std::to_string(g.ratio) + " x " + q(g.inner) +
           " (grouped_dims): two different dimensions and a positive ratio");
  std::set<std::string> rows;
  for (const RowOfTiles& r : p.rows) {
    if (r.name.empty() || r.dim.empty() || !rows.insert(r.name).second)
      fail("program " + q(p.name) + " lists row of tiles " + q(r.name) + " over " + q(r.dim) +
           " (rows): a row needs a name of its own and a dimension");
    if (r.capacity < 1)
      fail("program " + q(p.name) + "'s row of tiles " + q(r.name) + " holds " +
           std::to_string(r.capacity) + " tiles (rows): at least one");
  }
  const auto row_cbs = std::count_if(p.cbs.begin(), p.cbs.end(),
                                     [](const CircularBuffer& c) { return c.role == CBRole::row; });
  if (static_cast<std::size_t>(row_cbs) < p.rows.size())
    fail("program " + q(p.name) + " lists " + std::to_string(p.rows.size()) +
         " rows of tiles (rows) but has " + std::to_string(row_cbs) + " circular buffers for rows");
}

void check_program(const Program& p) {
  check_options(p);
  check_materialise(p);
  check_groups_and_rows(p);
  std::set<std::string> names;
  for (const Tensor& t : p.tensors) {
    if (!names.insert(t.name).second)
      fail("duplicate tensor " + q(t.name));
    if (t.dims.empty())
      fail("tensor " + q(t.name) + " has no dimensions");
    if (t.layout && t.layout->page_size <= 0)
      fail("tensor " + q(t.name) + " has a layout without a page size");
  }
  std::set<std::int64_t> indices;
  for (const CircularBuffer& c : p.cbs) {
    if (!names.insert(c.name).second)
      fail("duplicate name " + q(c.name) + " (circular buffer)");
    if (c.index < 0 || c.index > 31)
      fail("circular buffer " + q(c.name) + " has index " + std::to_string(c.index) +
           " outside 0..31");
    if (!indices.insert(c.index).second)
      fail("circular buffer index " + std::to_string(c.index) + " used twice");
    if (c.page_size <= 0 || c.depth <= 0)
      fail("circular buffer " + q(c.name) + " has no page size or depth");
    if (!c.tensor.empty() && !p.find_tensor(c.tensor))
      fail("circular buffer " + q(c.name) + " streams unknown tensor " + q(c.tensor));
    if (c.read_by_writer && c.role != CBRole::input)
      fail("circular buffer " + q(c.name) + " is read by the writer but its role is " +
           std::string(to_string(c.role)) + ", not input");
    if (!c.reader_writes_for.empty() && (c.role != CBRole::output || c.tensor.empty()))
      fail("circular buffer " + q(c.name) +
           " is written by the reader but is not an output CB "
           "of a tensor");
    if (!c.reader_writes_for.empty() && !p.find_cb(c.reader_writes_for))
      fail("circular buffer " + q(c.name) + " is written by the reader for unknown CB " +
           q(c.reader_writes_for));
  }
  std::set<std::string> accessors;
  for (const Accessor& a : p.accessors) {
    if (!p.find_tensor(a.tensor))
      fail("accessor of unknown tensor " + q(a.tensor));
    if (!accessors.insert(a.tensor).second)
      fail("two accessors of tensor " + q(a.tensor));
    if (a.args.empty())
      fail("the accessor of " + q(a.tensor) + " has no compile-time args");
  }
  std::set<std::string> fns;
  for (const Function& f : p.functions) {
    if (!fns.insert(f.name).second)
      fail("duplicate function " + q(f.name));
    try {
      check_function(p, f);
      if (f.config)
        check_config(p, f);
    } catch (Invalid& e) {
      e.message = "in function " + q(f.name) + ": " + e.message;
      throw;
    }
  }
  if (p.host_plan)
    check_host_plan(p, *p.host_plan);
}

} // namespace

std::optional<std::string> find_ir_error(const Module& m) {
  try {
    std::set<std::string> names;
    for (const Program& p : m.programs) {
      if (!names.insert(p.name).second)
        fail("duplicate program " + q(p.name));
      check_program(p);
    }
    // A program's combine is generated after it in the same run_cpu / run_tt: another program of
    // the module, finished by no other.
    std::set<std::string> combined;
    for (const Program& p : m.programs)
      if (!p.combine.empty() &&
          (p.combine == p.name || !names.count(p.combine) || !combined.insert(p.combine).second))
        fail("program " + q(p.name) + " names combine program " + q(p.combine) +
             (p.combine == p.name       ? ", itself"
              : !names.count(p.combine) ? ", which the module does not hold"
                                        : ", which another program names too"));
    // The value stored packed is one of the program's outputs.
    for (const Program& p : m.programs)
      if (const Tensor* t = p.cpu_packed_a.empty() ? nullptr : p.find_tensor(p.cpu_packed_a);
          !p.cpu_packed_a.empty() && (!t || t->role != TensorRole::output))
        fail("program " + q(p.name) + " stores " + q(p.cpu_packed_a) +
             " packed (cpu_packed_a), which is not one of its outputs");
  } catch (const Invalid& e) {
    return e.message;
  }
  return std::nullopt;
}

void verify(const Module& m, std::string_view after_stage) {
  if (auto err = find_ir_error(m))
    throw InternalError(
        "internal error: IR invalid after " + std::string(after_stage) + ": " + *err, print(m));
}

} // namespace tk::ir
