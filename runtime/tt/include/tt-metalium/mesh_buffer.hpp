// Device buffers (mirrors tt_metal/api/tt-metalium/mesh_buffer.hpp). Interleaved only: page p of a
// DRAM buffer lives in bank p % banks at address() + (p / banks) * align(page_size, DRAM
// alignment).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <variant>

#include <tt-metalium/buffer.hpp>
#include <tt-metalium/buffer_types.hpp>
#include <tt-metalium/mesh_device.hpp>

namespace tt::tt_metal::distributed {
struct DeviceLocalBufferConfig {
  DeviceAddr page_size = 0;
  BufferType buffer_type = BufferType::DRAM;
  std::optional<bool> bottom_up;
};
struct ReplicatedBufferConfig {
  DeviceAddr size = 0;
};
using MeshBufferConfig = std::variant<ReplicatedBufferConfig>;

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
  DeviceAddr size() const { return size_; }
  DeviceAddr page_size() const { return page_size_; }
  DeviceAddr aligned_page_size() const { return aligned_page_size_; }
  BufferType buffer_type() const { return type_; }
  bool is_dram() const { return type_ == BufferType::DRAM; }
  MeshDevice* device() const { return device_; }
  std::uint32_t num_pages() const {
    return static_cast<std::uint32_t>((size_ + page_size_ - 1) / page_size_);
  }

  // Host <-> device copies of `bytes` bytes, page by page through the interleaved mapping.
  /// The buffer on the device (tt-metal: the backing buffer keeps the MeshBuffer allocated; the
  /// reference buffer answers single-device queries). On the emulator's one device they are one.
  Buffer* get_backing_buffer() const { return &backing_; }
  Buffer* get_reference_buffer() const { return &backing_; }

  void write_bytes(const void* src, std::size_t bytes);
  void read_bytes(void* dst, std::size_t bytes) const;

private:
  MeshBuffer() = default;
  MeshDevice* device_ = nullptr;
  std::shared_ptr<tk::rt::emu::DeviceState> state_;
  DeviceAddr address_ = 0;
  DeviceAddr size_ = 0;
  DeviceAddr page_size_ = 0;
  DeviceAddr aligned_page_size_ = 0;
  BufferType type_ = BufferType::DRAM;
  std::uint32_t id_ = 0;
  mutable Buffer backing_{*this};
};
} // namespace tt::tt_metal::distributed

namespace tt::tt_metal {
inline DeviceAddr Buffer::size() const {
  return mesh_buffer_->size();
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
} // namespace tt::tt_metal
