#include "lowering/tt/attach_accessors.hpp"

namespace tk::lower {

namespace {

using namespace tk::ir;

// tensor_accessor::ArgConfig bits (hostdevcommon/tensor_accessor/arg_config.hpp).
constexpr std::int64_t kSharded = 1, kIsDram = 2;
// DRAM pages are aligned to 32 B on Wormhole (NOC_DRAM_READ_ALIGNMENT_BYTES), L1 pages to 16 B.
constexpr std::int64_t kDramAlign = 32, kL1Align = 16;

std::int64_t align_up(std::int64_t v, std::int64_t a) {
  return (v + a - 1) / a * a;
}

} // namespace

ir::Module attach_accessors(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    p.accessors.clear();
    for (const Tensor& t : p.tensors) {
      if (!t.layout)
        throw InternalError("internal error: attach-accessors: tensor '" + t.name +
                            "' has no layout (infer-layout runs first)");
      if (t.layout->kind == LayoutKind::sharded)
        throw InternalError("internal error: attach-accessors: sharded tensor '" + t.name +
                            "' (only interleaved layouts are produced)");
      bool dram = t.layout->memory == MemoryKind::dram;
      std::int64_t config =
          (dram ? kIsDram : 0) | (t.layout->kind == LayoutKind::sharded ? kSharded : 0);
      std::int64_t page = align_up(t.layout->page_size, dram ? kDramAlign : kL1Align);
      p.accessors.push_back({t.name, {config, page}});
    }
  }
  return out;
}

} // namespace tk::lower
