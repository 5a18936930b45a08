// What keep-rows and stream-rows share: their stage scaffold (each program's kernel, except a
// blocked matmul's, which block-matmul already reads in blocks) and the CB a row is read into
// (the tensor's format and page at the next free input index).
#pragma once

#include "lowering/ir/module.hpp"
#include "lowering/ir/util.hpp"

#include <string>
#include <string_view>

namespace tk::lower::tt {

/// Runs `run(program, kernel)` on the kernel of every program without a typed blocking.
template <class Run>
ir::Module on_unblocked_kernels(const ir::Module& m, Run&& run) {
  ir::Module out = m;
  for (ir::Program& p : out.programs) {
    if (p.blocking)
      continue;
    if (ir::Function* k = ir::find_function(p, ir::FuncKind::kernel))
      run(p, *k);
  }
  return out;
}

/// Adds the CB `cb_<tensor><suffix>` (fresh in `names`) of `depth` pages with the format and page
/// of the tensor's stream CB, at the next free input index, and returns its name. `stage` names
/// the caller in the internal error raised when no index or stream CB is left.
std::string add_row_cb(ir::Program& p, ir::NameSet& names, const std::string& tensor,
                       std::string_view suffix, std::int64_t depth, std::string_view stage);

} // namespace tk::lower::tt
