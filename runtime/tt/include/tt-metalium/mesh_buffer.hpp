// Device buffers (mirrors tt_metal/api/tt-metalium/mesh_buffer.hpp). A MeshBuffer is allocated in
// lockstep on every device of its mesh (the same address on each) with device_local_size() bytes
// per device: the whole size when replicated, one shard when sharded (the SDK's
// tt_metal/distributed/mesh_buffer.cpp). Interleaved on each device: page p of a DRAM buffer lives
// in bank p % banks at address() + (p / banks) * align(page_size, DRAM alignment). Sharded in L1
// (DeviceLocalBufferConfig::sharding_args): each core of the shard grid holds one shard of
// shape_in_pages() pages at address(), the pages dealt as the SDK's generate_buffer_page_mapping
// (tt_metal/impl/buffers/buffer.cpp) deals them.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>
#include <variant>
#include <vector>

#include <tt-metalium/buffer.hpp>
#include <tt-metalium/buffer_types.hpp>
#include <tt-metalium/mesh_device.hpp>
#include <tt-metalium/shape2d.hpp>

namespace tt::tt_metal::distributed {
struct DeviceLocalBufferConfig {
  DeviceAddr page_size = 0;
  BufferType buffer_type = BufferType::DRAM;
  /// Sharded in L1 (a ShardSpecBuffer and a layout) or interleaved.
  BufferShardingArgs sharding_args;
  std::optional<bool> bottom_up;
};
struct ReplicatedBufferConfig {
  DeviceAddr size = 0;
};
// A 2-D buffer of global_buffer_shape datums cut into shard_shape shards, shard i going to device
// i of the mesh in shard_orientation order; a 0 in shard_shape replicates that dimension.
struct ShardedBufferConfig {
  DeviceAddr global_size = 0;
  Shape2D global_buffer_shape = {0, 0};
  Shape2D shard_shape = {0, 0};
  ShardOrientation shard_orientation = ShardOrientation::ROW_MAJOR;

  std::uint32_t compute_datum_size_bytes() const {
    return static_cast<std::uint32_t>(global_size /
                                      (global_buffer_shape.height() * global_buffer_shape.width()));
  }
  std::pair<bool, bool> replicated_dims() const {
    return {shard_shape.height() == 0, shard_shape.width() == 0};
  }
  Shape2D physical_shard_shape() const {
    return {shard_shape.height() == 0 ? global_buffer_shape.height() : shard_shape.height(),
            shard_shape.width() == 0 ? global_buffer_shape.width() : shard_shape.width()};
  }
};

enum class MeshBufferLayout : std::uint8_t { REPLICATED, SHARDED };
using MeshBufferConfig = std::variant<ReplicatedBufferConfig, ShardedBufferConfig>;
class MeshCommandQueue;

class MeshBuffer {
public:
  static std::shared_ptr<MeshBuffer> create(const MeshBufferConfig& mesh_buffer_config,
                                            const DeviceLocalBufferConfig& device_local_config,
                                            MeshDevice* mesh_device,
                                            std::optional<DeviceAddr> address = std::nullopt);
  ~MeshBuffer();
  MeshBuffer(const MeshBuffer&) = delete;
  MeshBuffer& operator=(const MeshBuffer&) = delete;

  DeviceAddr address() const { return address_; }
  /// The global size: the replicated size, or the sharded buffer's global_size.
  DeviceAddr size() const { return size_; }
  DeviceAddr device_local_size() const { return device_local_size_; }
  MeshBufferLayout global_layout() const {
    return std::holds_alternative<ReplicatedBufferConfig>(config_) ? MeshBufferLayout::REPLICATED
                                                                   : MeshBufferLayout::SHARDED;
  }
  const MeshBufferConfig& global_config() const { return config_; }
  const ShardedBufferConfig& global_shard_spec() const;
  const DeviceLocalBufferConfig& device_local_config() const { return local_config_; }
  std::uint32_t datum_size_bytes() const;
  Shape2D physical_shard_shape() const { return global_shard_spec().physical_shard_shape(); }
  std::pair<bool, bool> replicated_dims() const { return global_shard_spec().replicated_dims(); }
  DeviceAddr page_size() const { return page_size_; }
  DeviceAddr aligned_page_size() const { return aligned_page_size_; }
  BufferType buffer_type() const { return type_; }
  bool is_dram() const { return type_ == BufferType::DRAM; }
  MeshDevice* device() const { return device_; }
  /// Pages per device.
  std::uint32_t num_pages() const {
    return static_cast<std::uint32_t>((device_local_size_ + page_size_ - 1) / page_size_);
  }

  /// The buffer on one device (tt-metal: the backing buffer keeps the MeshBuffer allocated; the
  /// reference buffer answers single-device queries). The devices' buffers are allocated in
  /// lockstep, so one Buffer answers for each of them.
  Buffer* get_backing_buffer() const { return &backing_; }
  Buffer* get_reference_buffer() const { return &backing_; }
  Buffer* get_device_buffer(const MeshCoordinate& device_coord) const;

private:
  friend class MeshCommandQueue;
  friend class tt::tt_metal::Buffer;
  MeshBuffer() : config_(ReplicatedBufferConfig{}) {}
  // Host <-> one device's copy: `bytes` bytes from the start of the device-local buffer, page by
  // page through the interleaved mapping.
  void write_device(const MeshCoordinate& coord, const void* src, std::size_t bytes);
  void read_device(const MeshCoordinate& coord, void* dst, std::size_t bytes) const;

  // Sharded in L1: host page p is page shard_pages_[p].second of the shard on core index
  // shard_pages_[p].first; empty when interleaved.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> shard_pages_;
  DeviceAddr bank_bytes_ = 0; // bytes allocated in each bank (each core's L1 when sharded)
  MeshDevice* device_ = nullptr;
  std::vector<std::shared_ptr<tk::rt::emu::DeviceState>> states_; // row-major, as the mesh
  MeshBufferConfig config_;
  DeviceLocalBufferConfig local_config_;
  DeviceAddr address_ = 0;
  DeviceAddr size_ = 0;
  DeviceAddr device_local_size_ = 0;
  DeviceAddr page_size_ = 0;
  DeviceAddr aligned_page_size_ = 0;
  BufferType type_ = BufferType::DRAM;
  std::uint32_t id_ = 0; // the allocation's index, the same on every device
  mutable Buffer backing_{*this};
};
} // namespace tt::tt_metal::distributed

namespace tt::tt_metal {
inline DeviceAddr Buffer::size() const {
  return mesh_buffer_->device_local_size();
}
inline uint32_t Buffer::address() const {
  return static_cast<uint32_t>(mesh_buffer_->address());
}
inline DeviceAddr Buffer::page_size() const {
  return mesh_buffer_->page_size();
}
inline uint32_t Buffer::num_pages() const {
  return mesh_buffer_->num_pages();
}
inline BufferType Buffer::buffer_type() const {
  return mesh_buffer_->buffer_type();
}
inline bool Buffer::is_l1() const {
  return mesh_buffer_->buffer_type() == BufferType::L1;
}
inline bool Buffer::is_dram() const {
  return mesh_buffer_->is_dram();
}
inline DeviceAddr Buffer::aligned_page_size() const {
  return mesh_buffer_->aligned_page_size();
}
inline TensorMemoryLayout Buffer::buffer_layout() const {
  return mesh_buffer_->device_local_config().sharding_args.buffer_layout();
}
inline bool Buffer::has_shard_spec() const {
  return mesh_buffer_->device_local_config().sharding_args.shard_spec().has_value();
}
inline ShardSpecBuffer Buffer::shard_spec() const {
  const auto& spec = mesh_buffer_->device_local_config().sharding_args.shard_spec();
  if (!is_sharded(buffer_layout()) || !spec)
    throw std::runtime_error("Buffer not sharded");
  return *spec;
}
inline DeviceAddr Buffer::aligned_size_per_bank() const {
  return mesh_buffer_->bank_bytes_;
}
inline std::optional<uint32_t> Buffer::num_cores() const {
  if (!is_sharded(buffer_layout()))
    return std::nullopt;
  return shard_spec().grid().num_cores();
}
} // namespace tt::tt_metal
