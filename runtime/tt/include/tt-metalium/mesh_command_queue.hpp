// The command queue of a mesh device (mirrors tt_metal/api/tt-metalium/mesh_command_queue.hpp):
// buffer writes and reads, whole or one device's shard at a time (ShardDataTransfer), and
// workloads, events and traces. The emulator completes each command before it returns, so
// finish() has nothing to wait for, an event is complete once recorded and waiting for one on
// another queue orders nothing that is not already in order. Between MeshDevice::begin_mesh_trace
// and end_mesh_trace the queue records its workloads instead of running them (writes, reads and
// events then fail, as in the SDK's fd_mesh_command_queue.cpp); replay_mesh_trace runs them again,
// in order, with the programs as they are at replay.
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
#include <tt-metalium/mesh_trace_id.hpp>
#include <tt-metalium/sub_device_types.hpp>
#include <tt_stl/span.hpp>

namespace tt::tt_metal::distributed {
class MeshDevice;
class MeshBuffer;
class MeshWorkload;
class ShardDataTransfer;
class MeshEvent;

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
  MeshEvent
  enqueue_record_event(ttsl::Span<const SubDeviceId> sub_device_ids = {},
                       const std::optional<MeshCoordinateRange>& device_range = std::nullopt);
  MeshEvent enqueue_record_event_to_host(
      ttsl::Span<const SubDeviceId> sub_device_ids = {},
      const std::optional<MeshCoordinateRange>& device_range = std::nullopt);
  void enqueue_wait_for_event(const MeshEvent& sync_event);
  void finish(ttsl::Span<const SubDeviceId> sub_device_ids = {});
  /// The trace being captured, if any.
  std::optional<MeshTraceId> trace_id() const { return trace_id_; }

private:
  friend class MeshDevice;
  friend void EnqueueMeshWorkload(MeshCommandQueue& cq, MeshWorkload& mesh_workload, bool blocking);
  void check_not_capturing(const char* what) const;
  MeshDevice* mesh_device_ = nullptr;
  std::uint32_t id_ = 0;
  std::uint32_t next_event_id_ = 0;
  std::optional<MeshTraceId> trace_id_;
  std::vector<MeshWorkload*> captured_; // the workloads of the trace being captured
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
