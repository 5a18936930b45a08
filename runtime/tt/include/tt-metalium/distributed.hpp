// Buffer I/O and workload execution (mirrors tt_metal/api/tt-metalium/distributed.hpp). The
// emulator runs a workload to completion inside EnqueueMeshWorkload, deterministically; kernel
// errors and deadlocks are thrown from there as tk::rt::emu::EmulatorError (a std::runtime_error).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <tt-metalium/mesh_buffer.hpp>
#include <tt-metalium/mesh_command_queue.hpp>
#include <tt-metalium/mesh_coord.hpp>
#include <tt-metalium/mesh_device.hpp>
#include <tt-metalium/mesh_event.hpp>
#include <tt-metalium/mesh_trace_id.hpp>
#include <tt-metalium/mesh_workload.hpp>

namespace tt::tt_metal::distributed {
/// One device's part of a buffer (WriteShard: the device-local buffer from src).
template <class DType>
void WriteShard(MeshCommandQueue& mesh_cq, const std::shared_ptr<MeshBuffer>& mesh_buffer,
                std::vector<DType>& src, const MeshCoordinate& coord, bool blocking = false) {
  std::vector<ShardDataTransfer> shard_data_transfers = {
      ShardDataTransfer{coord}.host_data(src.data())};
  mesh_cq.enqueue_write_shards(mesh_buffer, shard_data_transfers, blocking);
}

template <class DType>
void ReadShard(MeshCommandQueue& mesh_cq, std::vector<DType>& dst,
               const std::shared_ptr<MeshBuffer>& mesh_buffer, const MeshCoordinate& coord,
               bool blocking = true) {
  auto* shard = mesh_buffer->get_device_buffer(coord);
  dst.resize(shard->page_size() * shard->num_pages() / sizeof(DType));
  std::vector<ShardDataTransfer> shard_data_transfers = {
      ShardDataTransfer{coord}.host_data(dst.data())};
  mesh_cq.enqueue_read_shards(shard_data_transfers, mesh_buffer, blocking);
}

template <class DType>
void EnqueueWriteMeshBuffer(MeshCommandQueue& mesh_cq, std::shared_ptr<MeshBuffer>& mesh_buffer,
                            const std::vector<DType>& src, bool blocking = false) {
  mesh_cq.enqueue_write_mesh_buffer(mesh_buffer, src.data(), blocking);
}

template <class DType>
void EnqueueReadMeshBuffer(MeshCommandQueue& mesh_cq, std::vector<DType>& dst,
                           std::shared_ptr<MeshBuffer>& mesh_buffer, bool blocking = true) {
  if (mesh_buffer->global_layout() == MeshBufferLayout::SHARDED)
    dst.resize(mesh_buffer->global_shard_spec().global_size / sizeof(DType));
  else
    dst.resize(mesh_buffer->size() / sizeof(DType));
  mesh_cq.enqueue_read_mesh_buffer(dst.data(), mesh_buffer, blocking);
}

void EnqueueMeshWorkload(MeshCommandQueue& cq, MeshWorkload& mesh_workload, bool blocking);

/// Blocks until the event is recorded (the emulator's events are complete once recorded).
void EventSynchronize(const MeshEvent& event);
/// Whether the queue has recorded the event: always, on the emulator.
bool EventQuery(const MeshEvent& event);
MeshTraceId BeginTraceCapture(MeshDevice* device, uint8_t cq_id);
void Synchronize(MeshDevice* device, std::optional<uint8_t> cq_id,
                 ttsl::Span<const SubDeviceId> sub_device_ids = {});
void Finish(MeshCommandQueue& mesh_cq, ttsl::Span<const SubDeviceId> sub_device_ids = {});
} // namespace tt::tt_metal::distributed
