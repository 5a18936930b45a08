#include "lowering/tt/finalize_signature.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

namespace tk::lower {

namespace {

using namespace tk::ir;

const std::vector<AttrValue>& list_attr(const Function& f, const char* key) {
  auto it = f.attrs.find(key);
  if (it == f.attrs.end())
    throw InternalError("internal error: finalize-signature: '" + f.name + "' has no " + key);
  return std::get<std::vector<AttrValue>>(it->second.value);
}

const std::string& str(const AttrValue& v) {
  return std::get<std::string>(v.value);
}

void finalize(Program& p) {
  Function* host = ir::find_function(p, FuncKind::host);
  if (!host)
    throw InternalError("internal error: finalize-signature: program '" + p.name +
                        "' has no host plan");
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
  std::map<std::string, std::string> addr;
  for (const AttrValue& a : list_attr(*host, "addresses")) {
    const auto& pair = std::get<std::vector<AttrValue>>(a.value);
    addr[str(pair[0])] = str(pair[1]);
  }
  std::vector<AttrValue> buffers;
  for (const Tensor& t : p.tensors) {
    std::string size = names.fresh(t.name + "_bytes");
    Expr bytes = ir::mul(ir::mul(tiles(t.dims.at(0)), tiles(t.dims.at(1))),
                         int_imm(t.layout->page_size, Type::u32()));
    body.push_back(decl(size, Type::u32(), bytes));
    buffers.push_back(
        {std::vector<AttrValue>{{t.name}, {addr.at(t.name)}, {size}, {t.layout->page_size}}});
  }
  host->body = block(std::move(body));
  host->attrs.erase("addresses");
  host->attrs["buffers"] = {buffers};
  std::vector<AttrValue> kernels;
  for (Function& f : p.functions) {
    switch (f.kind) {
    case FuncKind::reader:
      f.attrs["processor"] = {std::string("RISCV_1")};
      f.attrs["noc"] = {std::string("RISCV_1_default")};
      break;
    case FuncKind::writer:
      f.attrs["processor"] = {std::string("RISCV_0")};
      f.attrs["noc"] = {std::string("RISCV_0_default")};
      break;
    case FuncKind::compute:
      f.attrs["math_fidelity"] = {tt::option_string(p, "math_fidelity", "HiFi4")};
      f.attrs["fp32_dest_acc_en"] = {tt::dst_fp32(p)};
      f.attrs["math_approx_mode"] = {false};
      break;
    default:
      continue;
    }
    kernels.push_back({f.name});
  }
  host->attrs["kernels"] = {kernels};
}

} // namespace

ir::Module finalize_signature(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs)
    finalize(p);
  return out;
}

} // namespace tk::lower
