// The device (mirrors tt_metal/api/tt-metalium/mesh_device.hpp). The emulator models one chip of
// the architecture TK_EMULATOR_ARCH names, else the default one (arch/arch.hpp), read when the
// device is created: its worker grid (TT_METAL_EMULATOR_GRID=RxC changes
// it), DRAM banks, L1 per core and NoC coordinates.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include <tt-metalium/core_coord.hpp>
#include <tt-metalium/mesh_coord.hpp>

namespace tk::rt::emu {
struct DeviceState;
}

namespace tt::tt_metal::distributed {
class MeshCommandQueue;

class MeshDevice {
public:
  static std::shared_ptr<MeshDevice> create_unit_mesh(int device_id, std::size_t l1_small_size = 0,
                                                      std::size_t trace_region_size = 0,
                                                      std::size_t num_command_queues = 1);
  ~MeshDevice();
  MeshDevice(const MeshDevice&) = delete;
  MeshDevice& operator=(const MeshDevice&) = delete;

  bool close();
  MeshCommandQueue& mesh_command_queue(std::optional<std::uint8_t> cq_id = std::nullopt) const;
  const MeshShape& shape() const { return shape_; }
  CoreCoord compute_with_storage_grid_size() const;
  CoreCoord worker_core_from_logical_core(const CoreCoord& logical_core) const;
  std::size_t num_dram_channels() const;
  std::uint32_t l1_size_per_core() const;
  int id() const { return id_; }

  const std::shared_ptr<tk::rt::emu::DeviceState>& state() const { return state_; }

private:
  explicit MeshDevice(int id);
  int id_;
  MeshShape shape_{1, 1};
  std::shared_ptr<tk::rt::emu::DeviceState> state_;
  std::unique_ptr<MeshCommandQueue> cq_;
};
} // namespace tt::tt_metal::distributed
