// The device (mirrors tt_metal/api/tt-metalium/mesh_device.hpp): a rows x cols mesh of chips
// (create_unit_mesh: 1x1; create(MeshDeviceConfig(MeshShape(2, 4))): a T3000's 2x4). Each chip is
// one of the architecture TK_EMULATOR_ARCH names, else the default one (arch/arch.hpp), read when
// the device is created, with its own worker grid (TT_METAL_EMULATOR_GRID=RxC changes it), DRAM
// banks, L1 per core and NoC coordinates.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <tt-metalium/allocator.hpp>
#include <tt-metalium/core_coord.hpp>
#include <tt-metalium/dispatch_core_common.hpp>
#include <tt-metalium/hal_types.hpp>
#include <tt-metalium/mesh_config.hpp>
#include <tt-metalium/mesh_coord.hpp>
#include <tt-metalium/mesh_trace_id.hpp>
#include <tt-metalium/sub_device.hpp>
#include <tt-metalium/sub_device_types.hpp>
#include <tt_stl/span.hpp>

namespace tk::rt::emu {
struct DeviceState;
}
namespace tt::tt_metal {
class AllocatorImpl;
}

namespace tt::tt_metal::distributed {
class MeshCommandQueue;
class MeshWorkload;

class MeshDevice {
public:
  static std::shared_ptr<MeshDevice> create(const MeshDeviceConfig& config,
                                            std::size_t l1_small_size = 0,
                                            std::size_t trace_region_size = 0,
                                            std::size_t num_command_queues = 1,
                                            const DispatchCoreConfig& dispatch_core_config = {});
  static std::shared_ptr<MeshDevice>
  create_unit_mesh(int device_id, std::size_t l1_small_size = 0, std::size_t trace_region_size = 0,
                   std::size_t num_command_queues = 1,
                   const DispatchCoreConfig& dispatch_core_config = {});
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
  uint8_t num_hw_cqs() const { return static_cast<uint8_t>(cqs_.size()); }

  /// Traces (tt_metal/distributed/mesh_device.cpp): capture the workloads enqueued on cq_id
  /// between begin and end, replay them, release them. Capture needs a trace region
  /// (trace_region_size > 0 at create).
  MeshTraceId begin_mesh_trace(uint8_t cq_id);
  void begin_mesh_trace(uint8_t cq_id, const MeshTraceId& trace_id);
  void end_mesh_trace(uint8_t cq_id, const MeshTraceId& trace_id);
  void replay_mesh_trace(uint8_t cq_id, const MeshTraceId& trace_id, bool blocking);
  void release_mesh_trace(const MeshTraceId& trace_id);

  /// Sub-devices: disjoint sets of worker cores, the same on every device of the mesh. A
  /// manager's local L1 is not set aside by the emulator (its programs' CBs are placed as usual).
  SubDeviceManagerId create_sub_device_manager(std::initializer_list<SubDevice> sub_devices,
                                               DeviceAddr local_l1_size);
  SubDeviceManagerId create_sub_device_manager(ttsl::Span<const SubDevice> sub_devices,
                                               DeviceAddr local_l1_size);
  void remove_sub_device_manager(SubDeviceManagerId sub_device_manager_id);
  void load_sub_device_manager(SubDeviceManagerId sub_device_manager_id);
  void clear_loaded_sub_device_manager();
  SubDeviceManagerId get_active_sub_device_manager_id() const { return active_manager_; }
  SubDeviceManagerId get_default_sub_device_manager_id() const { return SubDeviceManagerId{0}; }
  const std::vector<SubDeviceId>& get_sub_device_ids() const;
  uint32_t num_sub_devices() const { return static_cast<uint32_t>(get_sub_device_ids().size()); }

  /// The emulator's model of the device at (0, 0), and of the device at `coord`.
  const std::shared_ptr<tk::rt::emu::DeviceState>& state() const { return states_.front(); }
  const std::shared_ptr<tk::rt::emu::DeviceState>& state(const MeshCoordinate& coord) const;

private:
  MeshDevice(int id, const MeshShape& shape, std::size_t num_command_queues,
             std::size_t trace_region_size);
  int id_;
  MeshShape shape_{1, 1};
  std::vector<std::shared_ptr<tk::rt::emu::DeviceState>> states_; // row-major
  std::vector<std::unique_ptr<MeshCommandQueue>> cqs_;
  std::size_t trace_region_size_ = 0;
  std::uint32_t next_trace_id_ = 0;
  std::map<MeshTraceId, std::vector<MeshWorkload*>> traces_;
  // Sub-device managers by id; 0 is the default one (the whole grid as one sub-device).
  std::map<SubDeviceManagerId, std::vector<SubDevice>> sub_device_managers_;
  std::map<SubDeviceManagerId, std::vector<SubDeviceId>> sub_device_ids_;
  SubDeviceManagerId active_manager_{0};
  std::uint64_t next_manager_id_ = 1;
  std::unique_ptr<AllocatorImpl> allocator_impl_;
  std::unique_ptr<Allocator> allocator_;
};
} // namespace tt::tt_metal::distributed
