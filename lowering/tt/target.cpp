#include "lowering/tt/target.hpp"

#include "arch/dram_nocs.hpp"
#include "lowering/ir/intrinsics.hpp"
#include "lowering/ir/visitor.hpp"
#include "ops/ops.hpp"
#include "support/diagnostics.hpp"

#include <algorithm>

namespace tk::lower::tt {

using ir::Intrinsic;

namespace {
ir::Noc noc(int n) {
  return n == 0 ? ir::Noc::noc_0 : ir::Noc::noc_1;
}
} // namespace

ir::Noc reader_noc(const ir::Program& p) {
  return noc(arch::dram_nocs(arch_of(p)).read);
}

ir::Noc writer_noc(const ir::Program& p) {
  return noc(arch::dram_nocs(arch_of(p)).write);
}

CbRange cb_range(ir::CBRole role) {
  switch (role) {
  case ir::CBRole::input:
  case ir::CBRole::scaler:
  case ir::CBRole::mask:
    return {0, 7};
  case ir::CBRole::output:
    return {16, 23};
  case ir::CBRole::intermediate:
  case ir::CBRole::partials:
    return {24, 31};
  case ir::CBRole::row: // the old "dataflow" indices: every CBIndex c_0 .. c_31 is general
    return {8, 15};     // (tt_metal/hostdevcommon/api/hostdevcommon/kernel_structs.h)
  }
  return {0, 7};
}

const arch::ArchSpec& arch_of(const ir::Program& p) {
  const std::string& name = options(p).arch;
  const arch::ArchSpec* a = name.empty() ? &arch::default_arch() : arch::find(name);
  if (a == nullptr) // apply_overrides and to-tile-ir accept only the names of arch::all()
    throw InternalError("program '" + p.name + "' names an unknown architecture '" + name + "'");
  return *a;
}

std::int64_t l1_cb_budget(const ir::Program& p) {
  return arch_of(p).l1_cb_budget();
}

std::int64_t dst_capacity(const ir::Program& p, bool fp32_acc) {
  return arch_of(p).dst_tiles(fp32_acc);
}

std::vector<std::size_t> dst_slot_args(Intrinsic fn) {
  std::vector<std::size_t> out;
  const ir::IntrinsicInfo& in = ir::info(fn);
  for (std::size_t k = 0; k < in.args.size(); ++k)
    if (in.args[k] == ir::ArgKind::slot)
      out.push_back(k);
  return out;
}

std::vector<std::int64_t> free_cb_indices(const ir::Program& p, ir::CBRole role) {
  const CbRange r = cb_range(role);
  std::vector<std::int64_t> out;
  for (std::int64_t index = r.first; index <= r.last; ++index)
    if (std::none_of(p.cbs.begin(), p.cbs.end(),
                     [&](const ir::CircularBuffer& c) { return c.index == index; }))
      out.push_back(index);
  return out;
}

bool writes_dst(Intrinsic fn) {
  return !dst_slot_args(fn).empty();
}

bool is_compute_init(Intrinsic fn) {
  return ir::info(fn).effect == ir::Effect::init;
}

bool dst_fp32(const ir::Program& p) {
  return p.dst_fp32.value_or(options(p).fp32_acc);
}

bool intermediates_f32(const ir::Program& p) {
  return std::any_of(p.tensors.begin(), p.tensors.end(),
                     [](const ir::Tensor& t) { return t.dtype == ir::DType::f32; });
}

bool decide_dst_fp32(const ir::Program& p, const ir::Function& kernel) {
  // Whether the kernel accumulates: a product, a reduction, or a value carried across a loop.
  struct FindAccumulation : ir::Visitor {
    bool found = false;
    void visit_node(const ir::Call& c) override {
      const std::optional<ops::Op> op = ir::op_of(c.fn);
      found |= c.fn == ir::Intrinsic::tile_matmul || c.fn == ir::Intrinsic::tile_matmul_acc ||
               (op && (ops::info(*op).kind == ops::Kind::matmul ||
                       ops::info(*op).kind == ops::Kind::reduce));
      ir::Visitor::visit_node(c);
    }
    void visit_node(const ir::For& f) override {
      found |= f.role == ir::ForRole::reduction;
      ir::Visitor::visit_node(f);
    }
  } finder;
  finder.visit(kernel.body);
  // f32 data (Float32 intermediates) in a 16-bit DST would keep only bf16 precision.
  return options(p).fp32_acc || finder.found || intermediates_f32(p);
}

Unpackers unpackers(const ir::Call& c) {
  std::vector<ir::Expr> cbs;
  std::span<const ir::ArgKind> kinds = ir::info(c.fn).args;
  for (std::size_t i = 0; i < kinds.size() && i < c.args.size(); ++i)
    if (kinds[i] == ir::ArgKind::cb)
      cbs.push_back(c.args[i]);
  if (cbs.empty())
    return {};
  if (c.fn == Intrinsic::matmul_tiles || c.fn == Intrinsic::matmul_tiles_bt ||
      c.fn == Intrinsic::matmul_block)
    return {cbs[1], cbs[0]};
  return {cbs[0], cbs.size() > 1 ? cbs[1] : nullptr};
}

UnpackedCbs unpacked_cbs(const ir::Function& compute) {
  struct Collect : ir::Visitor {
    UnpackedCbs out;
    void visit_node(const ir::Call& c) override {
      if (writes_dst(c.fn)) {
        std::span<const ir::ArgKind> kinds = ir::info(c.fn).args;
        for (std::size_t i = 0; i < kinds.size() && i < c.args.size(); ++i)
          if (kinds[i] == ir::ArgKind::cb)
            (c.fn == Intrinsic::copy_tile || c.fn == Intrinsic::unary_bcast ? out.to_dest
                                                                            : out.to_src)
                .insert(ir::as<ir::Ref>(c.args[i])->name);
      }
      ir::Visitor::visit_node(c);
    }
  } collect;
  collect.visit(compute.body);
  return collect.out;
}

std::vector<std::string> unpack_to_dest_fp32(const ir::Program& p, const ir::Function& compute) {
  std::vector<std::string> out;
  if (!dst_fp32(p))
    return out;
  const UnpackedCbs u = unpacked_cbs(compute);
  for (const ir::CircularBuffer& cb : p.cbs)
    if (cb.format == ir::DataFormat::Float32 && u.to_dest.count(cb.name) &&
        !u.to_src.count(cb.name))
      out.push_back(cb.name);
  return out;
}

const ir::Options& options(const ir::Program& p) {
  static const ir::Options kDefaults;
  return p.options ? *p.options : kDefaults;
}

ir::Grid option_grid(const ir::Program& p) {
  if (const std::optional<ir::Grid>& g = options(p).grid)
    return *g;
  const arch::ArchSpec& a = arch_of(p);
  return ir::Grid{a.grid_x, a.grid_y};
}

std::optional<ir::MathFidelity> math_fidelity_option(const ir::Program& p) {
  // The option as the DSL spells it (the checker and ttgen accept these four).
  static constexpr std::pair<std::string_view, ir::MathFidelity> kNames[] = {
      {"LoFi", ir::MathFidelity::lofi},
      {"HiFi2", ir::MathFidelity::hifi2},
      {"HiFi3", ir::MathFidelity::hifi3},
      {"HiFi4", ir::MathFidelity::hifi4},
  };
  const std::string& s = options(p).math_fidelity;
  for (const auto& [name, f] : kNames)
    if (name == s)
      return f;
  return std::nullopt;
}

} // namespace tk::lower::tt
