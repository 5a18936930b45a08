#include "lowering/tt/plan_buffers.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

namespace tk::lower {

namespace {

using namespace tk::ir;

// Plans the CBs of one program; false when it reported a user error.
bool plan(Program& p, Diagnostics& diags) {
  ir::NameSet names(p);
  std::int64_t depth = tt::option_int(p, "cb_depth", 2);
  std::int64_t next[2] = {tt::cb_range(CBRole::input).first, tt::cb_range(CBRole::output).first};
  bool ok = true;
  for (const Tensor& t : p.tensors) {
    if (t.role == TensorRole::intermediate)
      continue;
    bool in = t.role == TensorRole::input;
    CBRole role = in ? CBRole::input : CBRole::output;
    std::int64_t& index = next[in ? 0 : 1];
    if (index > tt::cb_range(role).last) {
      diags.error(t.loc.range,
                  "kernel '" + p.name + "' has more than " + std::to_string(tt::kCbsPerRole) + " " +
                      (in ? "input" : "output") + " tensors; a Tensix core has " +
                      std::to_string(tt::kCbsPerRole) + " " + (in ? "input" : "output") +
                      " circular buffers (indices " + std::to_string(tt::cb_range(role).first) +
                      "-" + std::to_string(tt::cb_range(role).last) + ")");
      ok = false;
      continue;
    }
    CircularBuffer cb;
    cb.name = names.fresh("cb_" + t.name);
    cb.index = index++;
    cb.format = data_format_of(t.dtype);
    cb.page_size = t.layout ? t.layout->page_size : tile_bytes(t.dtype);
    cb.depth = depth;
    cb.role = role;
    cb.tensor = t.name;
    p.cbs.push_back(cb);
  }
  // The reduce scaler: one Float16_b tile the reader writes once and compute holds.
  for (const Function& f : p.functions) {
    std::vector<const Call*> reductions;
    for (Intrinsic fn : {Intrinsic::tile_rowsum, Intrinsic::tile_rowmax, Intrinsic::tile_colsum,
                         Intrinsic::tile_colmax})
      for (const Call* c : ir::calls_of(f.body, fn))
        reductions.push_back(c);
    if (reductions.empty() || !ok)
      continue;
    if (next[0] > tt::cb_range(CBRole::input).last) {
      diags.error(reductions.front()->loc.range,
                  "this reduction needs a scaler circular buffer, but the kernel's input tensors "
                  "use all 8 input circular buffers (indices 0-7)");
      return false;
    }
    CircularBuffer cb;
    cb.name = names.fresh("cb_scaler");
    cb.index = next[0]++;
    cb.format = DataFormat::Float16_b;
    cb.page_size = tile_bytes(DType::bf16);
    cb.depth = 1;
    cb.role = CBRole::scaler;
    p.cbs.push_back(cb);
    break;
  }
  return ok;
}

} // namespace

ir::Module plan_buffers(const ir::Module& m, Diagnostics& diags) {
  ir::Module out = m;
  for (ir::Program& p : out.programs)
    if (!plan(p, diags))
      return m;
  return out;
}

} // namespace tk::lower
