// Which core the current kernel runs on, for get_absolute_logical_x/_y and
// get_relative_logical_x/_y (api/dataflow/dataflow_api.h, api/compute/common.h).
#include "state.hpp"

namespace tk::rt::emu {

std::uint8_t logical_core_x() {
  return static_cast<std::uint8_t>(current().core->logical.x);
}
std::uint8_t logical_core_y() {
  return static_cast<std::uint8_t>(current().core->logical.y);
}

} // namespace tk::rt::emu
