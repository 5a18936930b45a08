#include "lowering/front/infer_layout.hpp"

namespace tk::lower {

ir::Module infer_layout(const ir::Module& m, Diagnostics&) {
  ir::Module out = m; // bodies are shared, not copied
  for (ir::Program& p : out.programs)
    for (ir::Tensor& t : p.tensors)
      if (!t.layout)
        t.layout = ir::Layout{ir::MemoryKind::dram, ir::LayoutKind::interleaved, 32, 32,
                              ir::tile_bytes(t.dtype)};
  return out;
}

} // namespace tk::lower
