// The mesh command queue: whole-buffer and per-shard writes and reads across the devices of a mesh,
// and workload launch. A sharded buffer's host data is a row-major global_buffer_shape array of
// datums; shard (y, x) of it goes to the next device in shard_orientation order (row-major:
// (0,0), (0,1), ...), a replicated dimension to every device along it (the SDK's
// MeshCommandQueueBase::write_sharded_buffer / read_sharded_buffer,
// tt_metal/distributed/mesh_command_queue_base.cpp).
#include <cstring>

#include <tt-metalium/distributed.hpp>
#include <tt-metalium/system_mesh.hpp>

#include "state.hpp"

namespace tt::tt_metal::distributed {
using tk::rt::emu::EmulatorError;

namespace {
// Visits every shard of `buffer` in the host order, with the devices it lives on and the offset of
// each of its rows in the host array: f(devices, row_offsets, row_bytes).
template <class F>
void for_each_shard(const MeshBuffer& buffer, F f) {
  const ShardedBufferConfig& spec = buffer.global_shard_spec();
  const auto [shard_height, shard_width] = spec.physical_shard_shape();
  const std::size_t datum = buffer.datum_size_bytes();
  const std::size_t stride = datum * spec.global_buffer_shape.width();
  const std::size_t row_bytes = datum * shard_width;
  const std::size_t shards_x = spec.global_buffer_shape.width() / shard_width;
  const std::size_t shards_y = spec.global_buffer_shape.height() / shard_height;
  const MeshDevice& mesh = *buffer.device();
  const auto rows = static_cast<std::uint32_t>(mesh.num_rows());
  const auto cols = static_cast<std::uint32_t>(mesh.num_cols());
  const bool row_major = spec.shard_orientation == ShardOrientation::ROW_MAJOR;
  const auto [height_replicated, width_replicated] = spec.replicated_dims();
  std::uint32_t device_x = 0, device_y = 0;
  for (std::size_t sy = 0; sy < shards_y; ++sy) {
    for (std::size_t sx = 0; sx < shards_x; ++sx) {
      std::vector<std::size_t> row_offsets(shard_height);
      for (std::size_t r = 0; r < shard_height; ++r)
        row_offsets[r] = sx * row_bytes + (sy * shard_height + r) * stride;
      std::vector<MeshCoordinate> devices;
      if (height_replicated && width_replicated) {
        for (const MeshCoordinate& c : MeshCoordinateRange(mesh.shape()))
          devices.push_back(c);
      } else if (height_replicated || width_replicated) {
        // One shard per column (row-major) or per row (column-major), replicated along it.
        if (row_major) {
          for (std::uint32_t y = 0; y < rows; ++y)
            devices.emplace_back(y, device_x);
          ++device_x;
        } else {
          for (std::uint32_t x = 0; x < cols; ++x)
            devices.emplace_back(device_y, x);
          ++device_y;
        }
      } else {
        devices.emplace_back(device_y, device_x);
        if (row_major) {
          if (++device_x == cols) {
            device_x = 0;
            ++device_y;
          }
        } else if (++device_y == rows) {
          device_y = 0;
          ++device_x;
        }
      }
      f(devices, row_offsets, row_bytes);
    }
  }
}
} // namespace

void MeshCommandQueue::enqueue_mesh_workload(MeshWorkload& mesh_workload, bool blocking) {
  EnqueueMeshWorkload(*this, mesh_workload, blocking);
}

void MeshCommandQueue::enqueue_write_shard_to_sub_grid(const MeshBuffer& buffer,
                                                       const void* host_data,
                                                       const MeshCoordinateRange& device_range,
                                                       bool /*blocking*/) {
  check_not_capturing("Writes are");
  auto& b = const_cast<MeshBuffer&>(buffer);
  if (buffer.global_layout() == MeshBufferLayout::REPLICATED) {
    for (const MeshCoordinate& c : device_range)
      b.write_device(c, host_data, buffer.device_local_size());
    return;
  }
  const auto* src = static_cast<const std::uint8_t*>(host_data);
  std::vector<std::uint8_t> shard(buffer.device_local_size());
  for_each_shard(buffer, [&](const std::vector<MeshCoordinate>& devices,
                             const std::vector<std::size_t>& row_offsets, std::size_t row_bytes) {
    for (std::size_t r = 0; r < row_offsets.size(); ++r)
      std::memcpy(shard.data() + r * row_bytes, src + row_offsets[r], row_bytes);
    for (const MeshCoordinate& c : devices)
      b.write_device(c, shard.data(), shard.size());
  });
}

void MeshCommandQueue::enqueue_write_mesh_buffer(const std::shared_ptr<MeshBuffer>& buffer,
                                                 const void* host_data, bool blocking) {
  enqueue_write_shard_to_sub_grid(*buffer, host_data,
                                  MeshCoordinateRange(buffer->device()->shape()), blocking);
}

void MeshCommandQueue::enqueue_write_shards(
    const std::shared_ptr<MeshBuffer>& mesh_buffer,
    const std::vector<ShardDataTransfer>& shard_data_transfers, bool /*blocking*/) {
  check_not_capturing("Writes are");
  for (const auto& t : shard_data_transfers)
    mesh_buffer->write_device(t.shard_coord(), t.host_data(), mesh_buffer->device_local_size());
}

void MeshCommandQueue::enqueue_read_mesh_buffer(void* host_data,
                                                const std::shared_ptr<MeshBuffer>& buffer,
                                                bool blocking) {
  check_not_capturing("Reads are");
  if (buffer->global_layout() != MeshBufferLayout::SHARDED && buffer->device()->num_devices() != 1)
    throw EmulatorError("Can only read a Sharded MeshBuffer from a MeshDevice or a Replicated "
                        "MeshBuffer from a Unit-Mesh.");
  if (!blocking)
    throw EmulatorError("Non-Blocking reads are not supported through enqueue_read_mesh_buffer. "
                        "Use enqueue_read_shards instead.");
  if (buffer->global_layout() == MeshBufferLayout::REPLICATED) {
    buffer->read_device(MeshCoordinate(0, 0), host_data, buffer->device_local_size());
    return;
  }
  const auto [height_replicated, width_replicated] = buffer->replicated_dims();
  if (height_replicated || width_replicated)
    throw EmulatorError("Cannot read a MeshBuffer that is replicated along any dimension.");
  auto* dst = static_cast<std::uint8_t*>(host_data);
  std::vector<std::uint8_t> shard(buffer->device_local_size());
  for_each_shard(*buffer, [&](const std::vector<MeshCoordinate>& devices,
                              const std::vector<std::size_t>& row_offsets, std::size_t row_bytes) {
    buffer->read_device(devices.front(), shard.data(), shard.size());
    for (std::size_t r = 0; r < row_offsets.size(); ++r)
      std::memcpy(dst + row_offsets[r], shard.data() + r * row_bytes, row_bytes);
  });
}

void MeshCommandQueue::enqueue_read_shards(
    const std::vector<ShardDataTransfer>& shard_data_transfers,
    const std::shared_ptr<MeshBuffer>& mesh_buffer, bool /*blocking*/) {
  check_not_capturing("Reads are");
  for (const auto& t : shard_data_transfers)
    mesh_buffer->read_device(t.shard_coord(), t.host_data(), mesh_buffer->device_local_size());
}

void MeshCommandQueue::finish(ttsl::Span<const SubDeviceId> /*sub_device_ids*/) {}
} // namespace tt::tt_metal::distributed

namespace tt::tt_metal::distributed {
SystemMesh& SystemMesh::instance() {
  static SystemMesh mesh;
  return mesh;
}
} // namespace tt::tt_metal::distributed
