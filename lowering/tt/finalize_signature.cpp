#include "lowering/tt/finalize_signature.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

#include <array>
#include <utility>

namespace tk::lower {

namespace {

using namespace tk::ir;

// Whether the compute kernel pushes tiles into a Bfp8_b CB (it packs a bfp8 output): the packer
// then rounds from full precision (bfp8_pack_precise), the one path whose rounding is documented.
bool packs_bfp8(const Program& p, const Function& compute) {
  for (const Call* c : ir::calls_of(compute.body, Intrinsic::cb_push_back)) {
    const Ref* r = as<Ref>(c->args.at(0));
    const CircularBuffer* cb = r ? p.find_cb(r->name) : nullptr;
    if (cb && cb->format == DataFormat::Bfp8_b)
      return true;
  }
  return false;
}

void finalize(Program& p, Diagnostics& diags) {
  Function* host = ir::find_function(p, FuncKind::host);
  if (!host || !p.host_plan)
    throw InternalError("internal error: finalize-signature: program '" + p.name +
                        "' has no host function and plan");
  HostPlan& plan = *p.host_plan;
  ir::NameSet names(p);
  std::vector<Stmt> body = as<Block>(host->body)->stmts;
  std::map<std::string, std::string> counts = ir::tile_count_vars(*host);
  // A size's tile count as a host value: a let of the host plan, added when missing.
  auto tiles = [&](const Dim& d) -> Expr {
    if (d.name.empty())
      return int_imm((d.size + 31) / 32, Type::u32());
    auto it = counts.find(d.name);
    if (it == counts.end()) {
      std::string n = names.fresh(d.name + "t");
      body.push_back(decl(n, Type::u32(), var(d.name, Type::u32()) / int_imm(32, Type::u32())));
      it = counts.emplace(d.name, n).first;
    }
    return var(it->second, Type::u32());
  };
  // Each buffer's size in bytes, a host let; its page, one tile of the tensor's layout.
  for (HostBuffer& b : plan.buffers) {
    const Tensor* t = p.find_tensor(b.tensor);
    if (!t || !t->layout)
      throw InternalError("internal error: finalize-signature: buffer of '" + b.tensor +
                          "', which is no tensor with a layout");
    b.size = names.fresh(t->name + "_bytes");
    b.page_size = t->layout->page_size;
    // Rows and columns are the last two dimensions; a batch multiplies them by its count.
    const std::size_t r = t->dims.size() - 2;
    Expr bytes = ir::mul(ir::mul(tiles(t->dims.at(r)), tiles(t->dims.at(r + 1))),
                         int_imm(b.page_size, Type::u32()));
    if (t->dims.size() == 3) {
      const Dim& batch = t->dims[0];
      bytes = ir::mul(batch.name.empty() ? int_imm(batch.size, Type::u32())
                                         : var(batch.name, Type::u32()),
                      bytes);
    }
    body.push_back(decl(b.size, Type::u32(), bytes));
  }
  host->body = block(std::move(body));

  std::optional<MathFidelity> fidelity = tt::math_fidelity_option(p);
  if (!fidelity) {
    diags.error("kernel '" + p.name + "': unknown math_fidelity '" + tt::options(p).math_fidelity +
                "'; use LoFi, HiFi2, HiFi3 or HiFi4");
    return;
  }
  plan.kernels.clear();
  for (Function& f : p.functions) {
    if (f.kind != FuncKind::reader && f.kind != FuncKind::compute && f.kind != FuncKind::writer)
      continue;
    if (!f.config)
      throw InternalError("internal error: finalize-signature: '" + f.name +
                          "' has no kernel config (bind-runtime-args runs first)");
    // Reader on RISCV_1 and the NoC TT reads DRAM on, writer on RISCV_0 and the NoC TT writes
    // DRAM on, as ReaderDataMovementConfig / WriterDataMovementConfig (tt::reader_noc).
    if (f.kind == FuncKind::reader)
      f.config->data_movement = DataMovementConfig{Processor::riscv_1, tt::reader_noc(p)};
    else if (f.kind == FuncKind::writer)
      f.config->data_movement = DataMovementConfig{Processor::riscv_0, tt::writer_noc(p)};
    else
      f.config->compute = ComputeConfig{*fidelity, tt::dst_fp32(p), false,
                                        tt::unpack_to_dest_fp32(p, f), packs_bfp8(p, f)};
    plan.kernels.push_back(f.name);
  }
}

} // namespace

ir::Module finalize_signature(const ir::Module& m, Diagnostics& diags) {
  ir::Module out = m;
  for (Program& p : out.programs)
    finalize(p, diags);
  return out;
}

} // namespace tk::lower
