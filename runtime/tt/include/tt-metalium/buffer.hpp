// A device buffer (mirrors tt_metal/api/tt-metalium/buffer.hpp, class Buffer): here the backing
// buffer of a MeshBuffer on its device (MeshBuffer::get_backing_buffer()), with the SDK's
// accessors for its address, size, pages, type and sharding; and the sharding's description
// (ShardSpec, ShardSpecBuffer, BufferShardingArgs). It reaches bfloat16, the buffer types and core
// coordinates, as the SDK's header does.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <utility>

#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/buffer_types.hpp>
#include <tt-metalium/core_coord.hpp>

namespace tt::tt_metal {
namespace distributed {
class MeshBuffer;
}

bool is_sharded(const TensorMemoryLayout& layout);

// A shard: `shape` elements (height, width) on each core of `grid`, the shards dealt to the cores
// in `orientation` order.
struct ShardSpec {
  CoreRangeSet grid;
  std::array<uint32_t, 2> shape;
  ShardOrientation orientation = ShardOrientation::ROW_MAJOR;

  ShardSpec(const CoreRangeSet& core_sets_, const std::array<uint32_t, 2>& shard_shape_,
            const ShardOrientation& shard_orientation_ = ShardOrientation::ROW_MAJOR)
      : grid(core_sets_), shape(shard_shape_), orientation(shard_orientation_) {}

  uint32_t num_cores() const { return this->grid.num_cores(); }
  uint32_t numel() const { return this->shape[0] * this->shape[1]; }
};

// A sharded buffer's layout in pages: the shard of `tensor_shard_spec`, cut into `page_shape`
// pages, of a tensor of `tensor2d_shape_in_pages` pages.
struct ShardSpecBuffer {
  ShardSpec tensor_shard_spec;
  std::array<uint32_t, 2> page_shape{};
  std::array<uint32_t, 2> tensor2d_shape_in_pages{};
  ShardSpecBuffer(const CoreRangeSet& core_sets_, const std::array<uint32_t, 2>& shard_shape_,
                  const ShardOrientation& shard_orientation_,
                  const std::array<uint32_t, 2>& page_shape,
                  const std::array<uint32_t, 2>& tensor2d_shape_in_pages)
      : tensor_shard_spec(core_sets_, shard_shape_, shard_orientation_), page_shape(page_shape),
        tensor2d_shape_in_pages(tensor2d_shape_in_pages) {}
  ShardSpecBuffer(const ShardSpec& shard_spec, const std::array<uint32_t, 2>& page_shape,
                  const std::array<uint32_t, 2>& tensor2d_shape_in_pages)
      : tensor_shard_spec(shard_spec), page_shape(page_shape),
        tensor2d_shape_in_pages(tensor2d_shape_in_pages) {}
  CoreRangeSet grid() const { return tensor_shard_spec.grid; }
  std::array<uint32_t, 2> shape() const { return tensor_shard_spec.shape; }
  ShardOrientation orientation() const { return tensor_shard_spec.orientation; }
  void set_shard_spec(const ShardSpec& shard_spec) { tensor_shard_spec = shard_spec; };

  /// Shape in pages of the full shard.
  std::array<uint32_t, 2> shape_in_pages() const {
    return {page_shape[0] == 0 ? 0 : tensor_shard_spec.shape[0] / page_shape[0],
            page_shape[1] == 0 ? 0 : tensor_shard_spec.shape[1] / page_shape[1]};
  }
  DeviceAddr num_pages() const {
    const auto s = shape_in_pages();
    return static_cast<DeviceAddr>(s[0]) * static_cast<DeviceAddr>(s[1]);
  }
};

// How a buffer is sharded (the SDK's class also takes a BufferDistributionSpec, which the emulator
// does not provide): a ShardSpecBuffer and a layout, or nothing (interleaved).
class BufferShardingArgs {
public:
  BufferShardingArgs() = default;
  BufferShardingArgs(std::nullopt_t) {}
  BufferShardingArgs(ShardSpecBuffer shard_spec, TensorMemoryLayout buffer_layout)
      : shard_spec_(std::move(shard_spec)), buffer_layout_(buffer_layout) {}
  BufferShardingArgs(std::optional<ShardSpecBuffer> shard_spec, TensorMemoryLayout buffer_layout)
      : shard_spec_(std::move(shard_spec)), buffer_layout_(buffer_layout) {}

  const std::optional<ShardSpecBuffer>& shard_spec() const { return shard_spec_; }
  TensorMemoryLayout buffer_layout() const { return buffer_layout_; }

private:
  std::optional<ShardSpecBuffer> shard_spec_;
  TensorMemoryLayout buffer_layout_ = TensorMemoryLayout::INTERLEAVED;
};

class Buffer final {
public:
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  DeviceAddr size() const;
  uint32_t address() const;
  DeviceAddr page_size() const;
  uint32_t num_pages() const;
  BufferType buffer_type() const;
  bool is_l1() const;
  bool is_dram() const;
  DeviceAddr aligned_page_size() const;
  TensorMemoryLayout buffer_layout() const;
  bool has_shard_spec() const;
  ShardSpecBuffer shard_spec() const;
  std::optional<uint32_t> num_cores() const;
  /// Bytes of the buffer in each bank (each core's L1 of a sharded buffer).
  DeviceAddr aligned_size_per_bank() const;

private:
  friend class distributed::MeshBuffer;
  explicit Buffer(const distributed::MeshBuffer& mesh_buffer) : mesh_buffer_(&mesh_buffer) {}
  const distributed::MeshBuffer* mesh_buffer_;
};
} // namespace tt::tt_metal

#include <tt-metalium/mesh_buffer.hpp>
