// An event recorded on a mesh command queue (mirrors tt_metal/api/tt-metalium/mesh_event.hpp).
// The emulator completes every command before the call that enqueues it returns, so an event is
// complete as soon as it is recorded.
#pragma once
#include <cstdint>
#include <ostream>

#include <tt-metalium/mesh_coord.hpp>
#include <tt-metalium/mesh_device.hpp>

namespace tt::tt_metal::distributed {
class MeshEvent {
public:
  MeshEvent(uint32_t id, MeshDevice* device, uint32_t mesh_cq_id,
            const MeshCoordinateRange& device_range)
      : id_(id), device_(device), mesh_cq_id_(mesh_cq_id), device_range_(device_range) {}

  uint32_t id() const { return id_; }
  MeshDevice* device() const { return device_; }
  uint32_t mesh_cq_id() const { return mesh_cq_id_; }
  const MeshCoordinateRange& device_range() const { return device_range_; }

  friend std::ostream& operator<<(std::ostream& os, const MeshEvent& event) {
    return os << "MeshEvent(id=" << event.id_ << ", mesh_cq_id=" << event.mesh_cq_id_ << ")";
  }

private:
  uint32_t id_ = 0;
  MeshDevice* device_ = nullptr;
  uint32_t mesh_cq_id_ = 0;
  MeshCoordinateRange device_range_;
};
} // namespace tt::tt_metal::distributed
