// Circular-buffer configuration (mirrors tt_metal/api/tt-metalium/circular_buffer_config.hpp): one
// config may name several buffer indices, which then share the same L1 space.
#pragma once
#include <cstdint>
#include <map>
#include <optional>

#include <hostdevcommon/kernel_structs.h>
#include <tt-metalium/circular_buffer_constants.h>
#include <tt-metalium/constants.hpp> // the SDK reaches it through tile.hpp
#include <tt-metalium/tt_backend_api_types.hpp>

namespace tt::tt_metal {
class CircularBufferConfig {
public:
  CircularBufferConfig(std::uint32_t total_size,
                       const std::map<std::uint8_t, tt::DataFormat>& data_format_spec);

  CircularBufferConfig& set_page_size(std::uint8_t buffer_index, std::uint32_t page_size);
  CircularBufferConfig& set_total_size(std::uint32_t total_size);
  CircularBufferConfig& set_data_format(std::uint8_t buffer_index, tt::DataFormat data_format);

  std::uint32_t total_size() const { return total_size_; }
  const std::map<std::uint8_t, tt::DataFormat>& data_formats() const { return formats_; }
  const std::map<std::uint8_t, std::uint32_t>& page_sizes() const { return page_sizes_; }

private:
  std::uint32_t total_size_;
  std::map<std::uint8_t, tt::DataFormat> formats_;
  std::map<std::uint8_t, std::uint32_t> page_sizes_;
};
} // namespace tt::tt_metal
