// Circular-buffer configuration (mirrors tt_metal/api/tt-metalium/circular_buffer_config.hpp): one
// config may name several buffer indices, which then share the same L1 space, which may be an L1
// buffer's (set_globally_allocated_address).
#pragma once
#include <cstdint>
#include <map>
#include <optional>

#include <hostdevcommon/kernel_structs.h>
#include <tt-metalium/circular_buffer_constants.h>
#include <tt-metalium/constants.hpp> // the SDK reaches it through tile.hpp
#include <tt-metalium/tt_backend_api_types.hpp>

namespace tt::tt_metal {
class Buffer;
class CircularBufferConfig {
public:
  CircularBufferConfig(std::uint32_t total_size,
                       const std::map<std::uint8_t, tt::DataFormat>& data_format_spec);

  CircularBufferConfig& set_page_size(std::uint8_t buffer_index, std::uint32_t page_size);
  CircularBufferConfig& set_total_size(std::uint32_t total_size);
  CircularBufferConfig& set_data_format(std::uint8_t buffer_index, tt::DataFormat data_format);
  /// The CB lives in an L1 buffer (on each core, at the buffer's address) instead of space of its
  /// own; its total size may not exceed the buffer's bytes per core.
  CircularBufferConfig& set_globally_allocated_address(const Buffer& buffer);
  CircularBufferConfig& set_globally_allocated_address_and_total_size(const Buffer& buffer,
                                                                      std::uint32_t total_size);
  std::optional<std::uint32_t> globally_allocated_address() const {
    return globally_allocated_address_;
  }
  /// The bytes per core of the buffer set with set_globally_allocated_address, else 0.
  std::uint32_t max_size() const { return max_size_; }

  std::uint32_t total_size() const { return total_size_; }
  const std::map<std::uint8_t, tt::DataFormat>& data_formats() const { return formats_; }
  const std::map<std::uint8_t, std::uint32_t>& page_sizes() const { return page_sizes_; }

private:
  std::uint32_t total_size_;
  std::map<std::uint8_t, tt::DataFormat> formats_;
  std::map<std::uint8_t, std::uint32_t> page_sizes_;
  std::optional<std::uint32_t> globally_allocated_address_;
  std::uint32_t max_size_ = 0;
};
} // namespace tt::tt_metal
