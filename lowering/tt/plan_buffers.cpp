#include "lowering/tt/plan_buffers.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

#include <algorithm>

namespace tk::lower {

namespace {

using namespace tk::ir;

// Plans the CBs of one program; false when it reported a user error.
bool plan(Program& p, Diagnostics& diags) {
  ir::NameSet names(p);
  std::int64_t depth = tt::options(p).cb_depth;
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
  // The position masks (tril, triu): one CB the reader fills per use, in the order compute
  // consumes them, like an input tensor's; in the intermediates' format (Float32 when the kernel
  // has f32 data, else Float16_b), whose 0.0 and 1.0 every format holds exactly.
  for (const Function& f : p.functions) {
    std::vector<const Call*> masks = ir::calls_of(f.body, Intrinsic::tile_tril);
    for (const Call* c : ir::calls_of(f.body, Intrinsic::tile_triu))
      masks.push_back(c);
    if (masks.empty() || !ok)
      continue;
    if (next[0] > tt::cb_range(CBRole::mask).last) {
      diags.error(masks.front()->loc.range,
                  "this mask needs a circular buffer of its own, but the kernel's input tensors" +
                      std::string(std::any_of(p.cbs.begin(), p.cbs.end(),
                                              [](const CircularBuffer& c) {
                                                return c.role == CBRole::scaler;
                                              })
                                      ? " and the reduce scaler"
                                      : "") +
                      " use all 8 input circular buffers (indices 0-7); pass fewer tensors");
      return false;
    }
    const bool f32 = tt::intermediates_f32(p); // the mask tile in the intermediates' format
    CircularBuffer cb;
    cb.name = names.fresh("cb_mask");
    cb.index = next[0]++;
    cb.format = f32 ? DataFormat::Float32 : DataFormat::Float16_b;
    cb.page_size = tile_bytes(f32 ? DType::f32 : DType::bf16);
    cb.depth = depth;
    cb.role = CBRole::mask;
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
