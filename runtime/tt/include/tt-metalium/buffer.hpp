// A device buffer (mirrors tt_metal/api/tt-metalium/buffer.hpp, class Buffer): here the backing
// buffer of a MeshBuffer on its device (MeshBuffer::get_backing_buffer()), with the SDK's
// accessors for its address, size, pages and type. It reaches bfloat16, the buffer types and core
// coordinates, as the SDK's header does.
#pragma once
#include <cstdint>

#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/buffer_types.hpp>
#include <tt-metalium/core_coord.hpp>

namespace tt::tt_metal {
namespace distributed {
class MeshBuffer;
}

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

private:
  friend class distributed::MeshBuffer;
  explicit Buffer(const distributed::MeshBuffer& mesh_buffer) : mesh_buffer_(&mesh_buffer) {}
  const distributed::MeshBuffer* mesh_buffer_;
};
} // namespace tt::tt_metal

#include <tt-metalium/mesh_buffer.hpp>
