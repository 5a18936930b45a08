#include "lowering/tt/row_cbs.hpp"

#include "lowering/tt/target.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower::tt {

std::string add_row_cb(ir::Program& p, ir::NameSet& names, const std::string& tensor,
                       std::string_view suffix, std::int64_t depth, std::string_view stage) {
  const std::vector<std::int64_t> free = free_cb_indices(p, ir::CBRole::input);
  const ir::CircularBuffer* stream = nullptr;
  for (const ir::CircularBuffer& c : p.cbs)
    if (c.tensor == tensor)
      stream = &c;
  if (free.empty() || !stream)
    throw InternalError("internal error: " + std::string(stage) +
                        ": no CB index or stream CB for '" + tensor + "'");
  ir::CircularBuffer c = *stream;
  c.name = names.fresh("cb_" + tensor + std::string(suffix));
  c.index = free.front();
  c.depth = depth;
  c.tensor.clear(); // the stream's CB stays the tensor's; this one is named by the read
  p.cbs.push_back(c);
  return c.name;
}

} // namespace tk::lower::tt
