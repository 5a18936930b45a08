// The device (mirrors tt_metal/api/tt-metalium/mesh_device.hpp): a rows x cols mesh of chips
// (create_unit_mesh: 1x1; create(MeshDeviceConfig(MeshShape(2, 4))): a T3000's 2x4). Each chip is
// one of the architecture TK_EMULATOR_ARCH names, else the default one (arch/arch.hpp), read when
// the device is created, with its own worker grid (TT_METAL_EMULATOR_GRID=RxC changes it), DRAM
// banks, L1 per core and NoC coordinates.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <tt-metalium/allocator.hpp>
#include <tt-metalium/core_coord.hpp>
#include <tt-metalium/mesh_config.hpp>
#include <tt-metalium/mesh_coord.hpp>

namespace tk::rt::emu {
struct DeviceState;
}
namespace tt::tt_metal {
class AllocatorImpl;
}

namespace tt::tt_metal::distributed {
class MeshCommandQueue;

class MeshDevice {
public:
  static std::shared_ptr<MeshDevice> create(const MeshDeviceConfig& config,
                                            std::size_t l1_small_size = 0,
                                            std::size_t trace_region_size = 0,
                                            std::size_t num_command_queues = 1);
  static std::shared_ptr<MeshDevice> create_unit_mesh(int device_id, std::size_t l1_small_size = 0,
                                                      std::size_t trace_region_size = 0,
                                                      std::size_t num_command_queues = 1);
  ~MeshDevice();
  MeshDevice(const MeshDevice&) = delete;
  MeshDevice& operator=(const MeshDevice&) = delete;

  bool close();
  MeshCommandQueue& mesh_command_queue(std::optional<std::uint8_t> cq_id = std::nullopt) const;
  const MeshShape& shape() const { return shape_; }
  std::size_t num_devices() const { return shape_.mesh_size(); }
  std::size_t num_rows() const { return shape_[0]; }
  std::size_t num_cols() const { return shape_.dims() > 1 ? shape_[1] : 1; }
  /// Every device of the emulated mesh is on this host.
  bool is_local(const MeshCoordinate& coord) const;
  CoreCoord compute_with_storage_grid_size() const;
  CoreCoord worker_core_from_logical_core(const CoreCoord& logical_core) const;
  std::size_t num_dram_channels() const;
  std::uint32_t l1_size_per_core() const;
  /// The allocator of the mesh (its devices allocate in lockstep, so one answers for all).
  const std::unique_ptr<Allocator>& allocator() const { return allocator_; }
  int id() const { return id_; }

  /// The emulator's model of the device at (0, 0), and of the device at `coord`.
  const std::shared_ptr<tk::rt::emu::DeviceState>& state() const { return states_.front(); }
  const std::shared_ptr<tk::rt::emu::DeviceState>& state(const MeshCoordinate& coord) const;

private:
  MeshDevice(int id, const MeshShape& shape);
  int id_;
  MeshShape shape_{1, 1};
  std::vector<std::shared_ptr<tk::rt::emu::DeviceState>> states_; // row-major
  std::unique_ptr<MeshCommandQueue> cq_;
  std::unique_ptr<AllocatorImpl> allocator_impl_;
  std::unique_ptr<Allocator> allocator_;
};
} // namespace tt::tt_metal::distributed
