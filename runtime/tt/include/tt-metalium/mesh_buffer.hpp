// Device buffers (mirrors tt_metal/api/tt-metalium/mesh_buffer.hpp). Interleaved only: page p of a
// DRAM buffer lives in bank p % banks at address() + (p / banks) * align(page_size, DRAM
// alignment).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <variant>

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
};
} // namespace tt::tt_metal::distributed
