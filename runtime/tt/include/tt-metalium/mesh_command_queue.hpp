// The command queue of a mesh device (mirrors tt_metal/api/tt-metalium/mesh_command_queue.hpp):
// buffer writes and reads, whole or one device's shard at a time (ShardDataTransfer), and
// workloads. The emulator completes each command before it returns, so finish() has nothing to
// wait for.
#pragma once
// The standard headers the SDK's mesh_command_queue.hpp includes (programs reach std::chrono
// through <thread>).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <span>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include <tt-metalium/mesh_coord.hpp>

namespace tt::tt_metal {
struct SubDeviceId {
  std::uint8_t id = 0;
};
} // namespace tt::tt_metal

namespace tt::tt_metal::distributed {
class MeshDevice;
class MeshBuffer;
class MeshWorkload;
class ShardDataTransfer;

class MeshCommandQueue {
public:
  MeshCommandQueue(MeshDevice* mesh_device, std::uint32_t id)
      : mesh_device_(mesh_device), id_(id) {}
  MeshCommandQueue(const MeshCommandQueue&) = delete;
  MeshCommandQueue& operator=(const MeshCommandQueue&) = delete;

  MeshDevice* device() const { return mesh_device_; }
  std::uint32_t id() const { return id_; }
  void enqueue_mesh_workload(MeshWorkload& mesh_workload, bool blocking);
  /// A replicated buffer: host_data to every device of device_range; a sharded one: host_data
  /// cut into its shards (device_range is then the whole mesh).
  void enqueue_write_shard_to_sub_grid(const MeshBuffer& buffer, const void* host_data,
                                       const MeshCoordinateRange& device_range, bool blocking);
  void enqueue_write_mesh_buffer(const std::shared_ptr<MeshBuffer>& buffer, const void* host_data,
                                 bool blocking);
  void enqueue_write_shards(const std::shared_ptr<MeshBuffer>& mesh_buffer,
                            const std::vector<ShardDataTransfer>& shard_data_transfers,
                            bool blocking);
  /// A sharded buffer gathered from its devices, or a replicated one from a unit mesh.
  void enqueue_read_mesh_buffer(void* host_data, const std::shared_ptr<MeshBuffer>& buffer,
                                bool blocking);
  void enqueue_read_shards(const std::vector<ShardDataTransfer>& shard_data_transfers,
                           const std::shared_ptr<MeshBuffer>& mesh_buffer, bool blocking);
  void finish(std::span<const SubDeviceId> sub_device_ids = {});

private:
  MeshDevice* mesh_device_ = nullptr;
  std::uint32_t id_ = 0;
};

/// One device's part of a write or read: the device-local buffer to or from host_data.
class ShardDataTransfer {
public:
  explicit ShardDataTransfer(const MeshCoordinate& shard_coord) : shard_coord_(shard_coord) {}
  MeshCoordinate shard_coord() const { return shard_coord_; }
  void* host_data() const { return host_data_; }
  ShardDataTransfer& shard_coord(const MeshCoordinate& shard_coord) {
    shard_coord_ = shard_coord;
    return *this;
  }
  ShardDataTransfer& host_data(void* host_data) {
    host_data_ = host_data;
    return *this;
  }

private:
  MeshCoordinate shard_coord_;
  void* host_data_ = nullptr;
};
} // namespace tt::tt_metal::distributed
