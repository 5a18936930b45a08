// The command queue of a mesh device (mirrors tt_metal/api/tt-metalium/mesh_command_queue.hpp).
#pragma once

namespace tt::tt_metal::distributed {
class MeshDevice;
class MeshCommandQueue {
public:
  explicit MeshCommandQueue(MeshDevice* device) : device_(device) {}
  MeshDevice* device() const { return device_; }

private:
  MeshDevice* device_;
};
} // namespace tt::tt_metal::distributed
