#include "lowering/tt/attach_accessors.hpp"

#include "lowering/tt/target.hpp"

namespace tk::lower {

namespace {

using namespace tk::ir;

// tensor_accessor::ArgConfig bits (hostdevcommon/tensor_accessor/arg_config.hpp).
constexpr std::int64_t kSharded = 1, kIsDram = 2;

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
      // Pages are aligned to the architecture's DRAM or L1 alignment.
      const arch::ArchSpec& a = tt::arch_of(p);
      std::int64_t page = align_up(t.layout->page_size, dram ? a.dram_alignment : a.l1_alignment);
      p.accessors.push_back({t.name, {config, page}});
    }
  }
  return out;
}

} // namespace tk::lower
