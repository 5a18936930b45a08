#include "report/estimate.hpp"

#include "include/tilekit/matmul_blocks.hpp"
#include "include/tilekit/q_chunk.hpp"

#include "lowering/ir/fold.hpp"
#include "lowering/tt/call_cost.hpp"
#include "lowering/tt/target.hpp"
#include "support/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>

namespace tk::report {

using namespace tk::ir;
namespace timing = tk::rt::emu::timing;

namespace {

/// Values of the names in scope: a host let, a runtime argument, a loop variable. nullopt is a
/// value the count does not need and the estimate does not know (a buffer address, a float's
/// bits, a loop variable counted by multiplication).
using Env = std::map<std::string, std::optional<double>, std::less<>>;

std::optional<double> eval(const Expr& e, const Env& env,
                           const std::vector<std::optional<double>>* args = nullptr) {
  if (const IntImm* i = as<IntImm>(e))
    return static_cast<double>(i->value);
  if (const FloatImm* f = as<FloatImm>(e))
    return f->value;
  if (const Var* v = as<Var>(e)) {
    auto it = env.find(v->name);
    if (it == env.end())
      throw InternalError("internal error: report: unknown name '" + v->name + "'");
    return it->second;
  }
  if (const Binary* b = as<Binary>(e)) {
    std::optional<double> x = eval(b->a, env, args), y = eval(b->b, env, args);
    if (!x || !y)
      return std::nullopt;
    // An integer division truncates toward zero; the values are doubles here.
    if (b->op == BinaryOp::div && b->type.is_int())
      return *y == 0 ? std::nullopt : std::optional<double>(std::trunc(*x / *y));
    return fold_binary(b->op, *x, *y);
  }
  if (const Call* c = as<Call>(e)) {
    if (c->fn == Intrinsic::to_f32)
      return eval(c->args[0], env, args);
    if (c->fn == Intrinsic::tt_matmul_block) { // the host's rule, as the host calls it
      std::int64_t a[23];
      for (std::size_t k = 0; k < 23; ++k) {
        std::optional<double> x = eval(c->args[k], env, args);
        if (!x)
          return std::nullopt;
        a[k] = static_cast<std::int64_t>(*x);
      }
      return static_cast<double>(tk::tt_host::matmul_block(
          a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13],
          a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22]));
    }
    if (c->fn == Intrinsic::tt_q_chunk) { // the Q chunk rule, as the host calls it
      std::int64_t a[3 + tk::tt_host::kQChunkArgs];
      if (c->args.size() != std::size(a))
        return std::nullopt;
      for (std::size_t k = 0; k < std::size(a); ++k) {
        std::optional<double> x = eval(c->args[k], env, args);
        if (!x)
          return std::nullopt;
        a[k] = static_cast<std::int64_t>(*x);
      }
      const tk::tt_host::QChunkLimits l = tk::tt_host::q_chunk_limits(a + 3);
      return static_cast<double>(tk::tt_host::choose_q_chunk(a[0], a[1], a[2], l));
    }
    if (c->fn == Intrinsic::get_arg_val && args) {
      const auto* i = as<IntImm>(c->args[0]);
      if (!i || i->value < 0 || static_cast<std::size_t>(i->value) >= args->size())
        throw InternalError("internal error: report: get_arg_val beyond the runtime args");
      return (*args)[static_cast<std::size_t>(i->value)];
    }
  }
  return std::nullopt; // float bits, addresses, accessors: not needed to count
}

/// What one kernel body does, summed over its loops.
struct Counts {
  std::map<std::string, std::int64_t> pages_read, pages_written; // by tensor
  struct Op {
    timing::TileOp cost_class;
    std::int64_t count = 0;
    double cycles = 0;
  };
  std::map<std::string, Op> ops; // by SDK call
  double compute_cycles = 0;
  double pack_cycles = 0; // the pack thread's share of compute_cycles

  void add(const Counts& o, std::int64_t times) {
    for (const auto& [t, n] : o.pages_read)
      pages_read[t] += n * times;
    for (const auto& [t, n] : o.pages_written)
      pages_written[t] += n * times;
    for (const auto& [call, op] : o.ops) {
      Op& mine = ops.try_emplace(call, Op{op.cost_class}).first->second;
      mine.count += op.count * times;
      mine.cycles += op.cycles * static_cast<double>(times);
    }
    compute_cycles += o.compute_cycles * static_cast<double>(times);
    pack_cycles += o.pack_cycles * static_cast<double>(times);
  }
};

/// The SDK spelling of a call (`matmul_tiles.bt` is matmul_tiles after mm_init_short(a, b, 1)),
/// with the pool type of a reduction, whose cost depends on it: `reduce_tile<MAX>`.
std::string sdk_name(const Call& c) {
  if (c.fn == Intrinsic::exp_tile_approx || c.fn == Intrinsic::exp_tile_approx_scaled)
    return "exp_tile<true>";
  if (c.fn == Intrinsic::exp_tile_approx_noclamp ||
      c.fn == Intrinsic::exp_tile_approx_noclamp_scaled)
    return "exp_tile<true, false, InputClamping::None, 32>";
  std::string name(to_string(c.fn));
  name = name.substr(0, name.find('.'));
  if (c.fn == Intrinsic::reduce_tile)
    if (const EnumImm* pool = as<EnumImm>(c.args[0])) {
      std::string_view v = to_string(pool->value); // PoolType::MAX
      name += "<" + std::string(v.substr(v.rfind(':') + 1)) + ">";
    }
  return name;
}

class Walker {
public:
  Walker(const Program& p, const timing::Arch& arch, int phases, bool fp32_dst = false)
      : program_(p), arch_(arch), phases_(phases), fp32_dst_(fp32_dst) {}

  /// Adds what `s` does to `out`; false when that depends on a value it does not know (a loop
  /// variable being counted by multiplication: the caller then iterates the loop).
  bool walk(const Stmt& s, Env& env, Counts& out) const {
    if (const Block* b = as<Block>(s)) {
      for (const Stmt& x : b->stmts)
        if (!walk(x, env, out))
          return false;
      return true;
    }
    if (const Decl* d = as<Decl>(s)) {
      env[d->name] = eval(d->value, env, args_);
      return true;
    }
    if (const Assign* a = as<Assign>(s)) {
      env[a->name] = eval(a->value, env, args_);
      return true;
    }
    if (const For* f = as<For>(s))
      return walk_loop(*f, env, out);
    if (const IfThenElse* i = as<IfThenElse>(s)) {
      std::optional<double> cond = eval(i->cond, env, args_);
      if (!cond)
        return false;
      if (*cond != 0)
        return walk_scope(i->then_case, env, out);
      return !i->else_case || walk_scope(i->else_case, env, out);
    }
    if (const Evaluate* e = as<Evaluate>(s))
      if (const Call* c = as<Call>(e->call))
        count(*c, out);
    return true;
  }

  void set_args(const std::vector<std::optional<double>>* args) { args_ = args; }

private:
  bool walk_scope(const Stmt& s, const Env& env, Counts& out) const {
    Env inner = env;
    return walk(s, inner, out);
  }

  bool walk_loop(const For& f, const Env& env, Counts& out) const {
    std::optional<double> extent = eval(f.extent, env, args_);
    if (!extent)
      return false;
    const auto n = static_cast<std::int64_t>(*extent);
    if (n <= 0)
      return true;
    // Once, times the trip count, when the body's counts do not depend on the loop variable.
    Env once = env;
    once[f.var] = std::nullopt;
    Counts body;
    if (walk(f.body, once, body)) {
      out.add(body, n);
      return true;
    }
    // Otherwise iteration by iteration.
    std::optional<double> min = eval(f.min, env, args_);
    if (!min)
      return false;
    for (std::int64_t k = 0; k < n; ++k) {
      Env it = env;
      it[f.var] = *min + static_cast<double>(k);
      if (!walk(f.body, it, out))
        return false;
    }
    return true;
  }

  void count(const Call& c, Counts& out) const {
    switch (c.fn) {
    case Intrinsic::noc_async_read_page:
    case Intrinsic::noc_async_read_tile:
      ++out.pages_read[as<Ref>(c.args[1])->name];
      return;
    case Intrinsic::noc_async_write_page:
    case Intrinsic::noc_async_write_tile:
      ++out.pages_written[as<Ref>(c.args[1])->name];
      return;
    default:
      break;
    }
    // dst.assume_zero is TileKit's marker, not a call.
    if (c.fn == Intrinsic::dst_assume_zero ||
        (c.fn != Intrinsic::pack_tile && !lower::tt::writes_dst(c.fn)))
      return;
    const timing::TileOp cls = lower::tt::tile_op_class(c);
    double bytes = 0;
    if (cls == timing::TileOp::Pack) {
      const CircularBuffer* cb = program_.find_cb(as<Ref>(c.args[1])->name);
      if (!cb)
        throw InternalError("internal error: report: pack_tile into an unknown CB");
      bytes = static_cast<double>(cb->page_size);
    }
    // A call is one tile operation, but matmul_block is rt_dim x ct_dim tile products, and
    // counts as that many (the tile products are what the report and the emulator compare).
    const std::int64_t tiles = c.fn == Intrinsic::matmul_block
                                   ? as<IntImm>(c.args[6])->value * as<IntImm>(c.args[7])->value
                                   : 1;
    const double cycles =
        (cls == timing::TileOp::Sfpu ? lower::tt::sfpu_cycles(arch_, c.fn, fp32_dst_)
                                     : timing::tile_op_cycles(arch_, cls, phases_, bytes)) *
        static_cast<double>(tiles);
    Counts::Op& op = out.ops.try_emplace(sdk_name(c), Counts::Op{cls}).first->second;
    op.count += tiles;
    op.cycles += cycles;
    out.compute_cycles += cycles;
    if (cls == timing::TileOp::Pack)
      out.pack_cycles += cycles;
  }

  const Program& program_;
  const timing::Arch& arch_;
  int phases_;
  bool fp32_dst_; // the compute kernel's DST format (ComputeConfig::fp32_dest_acc_en)
  const std::vector<std::optional<double>>* args_ = nullptr;
};

int phases_of(MathFidelity f) {
  return static_cast<int>(f) + 1; // lofi 1, hifi2 2, hifi3 3, hifi4 4
}

const Function& function(const Program& p, const std::string& name) {
  for (const Function& f : p.functions)
    if (f.name == name)
      return f;
  throw InternalError("internal error: report: no function '" + name + "'");
}

std::int64_t tiles_of(const Tensor& t, const Shape& shape) {
  std::int64_t tiles = 1;
  for (std::size_t k = 0; k < t.dims.size(); ++k) {
    const Dim& d = t.dims[k];
    std::int64_t size = d.name.empty() ? d.size : shape.find(d.name)->second;
    const bool tiled = k + 2 >= t.dims.size(); // the last two dimensions are tiled
    tiles *= tiled ? (size + 31) / 32 : size;
  }
  return tiles;
}

} // namespace

std::vector<std::string> dimension_names(const Program& p) {
  std::vector<std::string> names;
  for (const Tensor& t : p.tensors)
    for (const Dim& d : t.dims)
      if (!d.name.empty() && std::find(names.begin(), names.end(), d.name) == names.end())
        names.push_back(d.name);
  return names;
}

Estimate estimate(const Program& p, const Shape& shape) {
  const timing::Arch& arch = lower::tt::arch_of(p);
  if (!p.host_plan || (!p.host_plan->per_core && !p.host_plan->core_grid))
    throw InternalError("internal error: report: '" + p.name + "' is not lowered to TT kernels");
  const HostPlan& plan = *p.host_plan;
  Estimate est;
  est.kernel = p.name;
  est.arch = ::tk::arch::describe(arch);
  est.clock_ghz = arch.clock_ghz.value;
  est.grid = plan.grid;
  for (const std::string& d : dimension_names(p)) {
    auto it = shape.find(d);
    if (it == shape.end())
      throw InternalError("internal error: report: the shape lacks dimension '" + d + "'");
    est.shape.emplace_back(d, it->second);
  }

  // The host's lets at this shape.
  Env host;
  const Function* host_fn = nullptr;
  for (const Function& f : p.functions)
    if (f.kind == FuncKind::host)
      host_fn = &f;
  if (!host_fn)
    throw InternalError("internal error: report: '" + p.name + "' has no host function");
  for (const Param& prm : host_fn->params) {
    auto it = shape.find(prm.name);
    host[prm.name] = it == shape.end() ? std::nullopt : std::optional<double>(double(it->second));
  }
  Walker host_walker(p, arch, 4);
  Counts unused;
  host_walker.walk(host_fn->body, host, unused);
  for (const HostBuffer& b : plan.buffers)
    host[b.address] = std::nullopt;

  std::optional<double> items = host[plan.work_items];
  if (!items)
    throw InternalError("internal error: report: cannot evaluate '" + plan.work_items + "'");
  est.work_items = static_cast<std::int64_t>(*items);
  for (const std::string& s : plan.semaphores)
    host[s] = std::nullopt;
  // Each core's host values, as the host sets them.
  std::vector<Env> cores;
  if (const auto& g = plan.core_grid) {
    // core_grid: a cols x rows rectangle, every core walking the same rounds of items.
    auto known = [&](const std::string& n) {
      std::optional<double> v = host[n];
      if (!v)
        throw InternalError("internal error: report: cannot evaluate '" + n + "'");
      return static_cast<std::int64_t>(*v);
    };
    const std::int64_t across = known(g->across), down = known(g->down);
    const std::int64_t cols = std::min(plan.grid.x, across), rows = std::min(plan.grid.y, down);
    const Function* core_fn = nullptr;
    for (const Function& f : p.functions)
      if (f.kind == FuncKind::host_core)
        core_fn = &f;
    for (std::int64_t y = 0; y < rows; ++y)
      for (std::int64_t x = 0; x < cols; ++x) {
        Env e = host;
        e[g->x] = static_cast<double>(x);
        e[g->y] = static_cast<double>(y);
        e[g->cols] = static_cast<double>(cols);
        e[g->rows] = static_cast<double>(rows);
        if (core_fn)
          host_walker.walk(core_fn->body, e, unused);
        cores.push_back(std::move(e));
      }
    est.cores = cols * rows;
    if (est.cores > 0)
      est.items_min = est.items_max = ((down + rows - 1) / rows) * ((across + cols - 1) / cols);
  } else {
    // split_work_to_cores: the first items % cores cores take one item more.
    est.cores = std::min<std::int64_t>(est.work_items, plan.grid.x * plan.grid.y);
    if (est.cores > 0) {
      est.items_max = (est.work_items + est.cores - 1) / est.cores;
      est.items_min = est.work_items / est.cores;
    }
    // The cores in the split's order, by column (by row when row_wise); a host_core function
    // (the multicasts to the grid) takes the core's coordinates, the cores used and the grid.
    const Function* core_fn = nullptr;
    for (const Function& f : p.functions)
      if (f.kind == FuncKind::host_core)
        core_fn = &f;
    std::int64_t start = 0;
    for (std::int64_t core = 0; core < est.cores; ++core) {
      const std::int64_t count =
          core < est.work_items % est.cores ? est.items_max : est.work_items / est.cores;
      Env e = host;
      e[plan.per_core->start] = static_cast<double>(start);
      e[plan.per_core->count] = static_cast<double>(count);
      if (core_fn) {
        const std::int64_t gx = plan.grid.x, gy = plan.grid.y;
        const std::int64_t x = plan.row_wise ? core % gx : core / gy;
        const std::int64_t y = plan.row_wise ? core / gx : core % gy;
        const std::vector<std::int64_t> values = {x, y, est.cores, gx, gy};
        for (std::size_t n = 0; n < values.size(); ++n)
          e[core_fn->params[n].name] = static_cast<double>(values[n]);
        host_walker.walk(core_fn->body, e, unused);
      }
      cores.push_back(std::move(e));
      start += count;
    }
  }

  MathFidelity fidelity = MathFidelity::hifi4;
  for (const std::string& k : plan.kernels)
    if (const Function& f = function(p, k); f.config && f.config->compute)
      fidelity = f.config->compute->math_fidelity;
  static constexpr const char* kFidelity[] = {"LoFi", "HiFi2", "HiFi3", "HiFi4"};
  est.math_fidelity = kFidelity[static_cast<int>(fidelity)];
  const int phases = phases_of(fidelity);

  // The DRAM bytes of a count: its pages at each tensor's page size.
  std::map<std::string, std::int64_t> page_bytes;
  for (const Tensor& t : p.tensors)
    page_bytes[t.name] = t.layout ? t.layout->page_size : tile_bytes(t.dtype);
  auto dram_bytes = [&](const Counts& c) {
    std::int64_t n = 0;
    for (const auto* pages : {&c.pages_read, &c.pages_written})
      for (const auto& [t, count] : *pages)
        n += count * page_bytes.at(t);
    return n;
  };

  Counts total;
  for (const Env& per_core : cores) {
    Counts on_core;
    for (const std::string& k : plan.kernels) {
      const Function& f = function(p, k);
      std::vector<std::optional<double>> args;
      for (const std::string& a : f.config->runtime_args) {
        auto it = per_core.find(a);
        if (it == per_core.end())
          throw InternalError("internal error: report: runtime arg '" + a + "' of '" + k +
                              "' is no host value");
        args.push_back(it->second);
      }
      Walker w(p, arch, phases, f.config->compute && f.config->compute->fp32_dest_acc_en);
      w.set_args(&args);
      Env env;
      for (const Param& prm : f.params)
        env[prm.name] = std::nullopt;
      const std::int64_t before = dram_bytes(on_core);
      if (!w.walk(f.body, env, on_core))
        throw InternalError("internal error: report: cannot count the loops of '" + k + "'");
      if (f.config->data_movement) // a reader's or writer's DRAM traffic is on its kernel's NoC
        est.dram_bytes_on_noc[f.config->data_movement->noc == Noc::noc_0 ? 0 : 1] +=
            dram_bytes(on_core) - before;
    }
    // The pack thread overlaps the unpack and math threads (docs/timing.md): a core takes at
    // least the longer of the two.
    est.busiest_core_compute_cycles =
        std::max({est.busiest_core_compute_cycles, on_core.compute_cycles - on_core.pack_cycles,
                  on_core.pack_cycles});
    total.add(on_core, 1);
  }

  for (const Tensor& t : p.tensors) {
    TensorTraffic tr;
    tr.name = t.name;
    tr.role = t.role;
    tr.dtype = t.dtype;
    tr.tiles = tiles_of(t, shape);
    tr.page_bytes = t.layout ? t.layout->page_size : tile_bytes(t.dtype);
    tr.pages_read = total.pages_read[t.name];
    tr.pages_written = total.pages_written[t.name];
    est.dram_bytes_read += tr.bytes_read();
    est.dram_bytes_written += tr.bytes_written();
    est.tensors.push_back(std::move(tr));
  }
  for (const auto& [call, op] : total.ops) {
    est.tile_ops.push_back({call, op.cost_class, op.count, op.cycles});
    if (op.cost_class == timing::TileOp::Matmul) {
      est.matmul_tiles += op.count;
      est.ideal_matmul_cycles += op.cycles / static_cast<double>(arch.grid_x * arch.grid_y);
    }
  }
  est.compute_cycles = total.compute_cycles;
  est.dram_bound_cycles = static_cast<double>(est.dram_bytes_read + est.dram_bytes_written) /
                          arch.dram_peak_bytes_per_cycle.value;
  // The floor: every bank at its interleaved rate, and each NoC that has the DRAM queue
  // (dram_total_nocs) carrying its kernels' bytes at the queue's rate; the emulator charges both.
  est.dram_floor_cycles = static_cast<double>(est.dram_bytes_read + est.dram_bytes_written) /
                          (arch.dram_banks * arch.dram_bank_bytes_per_cycle.value);
  for (int noc = 0; noc < 2; ++noc)
    if (arch.dram_total_nocs.has(noc))
      est.dram_floor_cycles =
          std::max(est.dram_floor_cycles, static_cast<double>(est.dram_bytes_on_noc[noc]) /
                                              arch.dram_read_total_bytes_per_cycle.value);
  return est;
}

} // namespace tk::report
