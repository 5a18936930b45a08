// Host side of TensorAccessor (mirrors tt_metal/api/tt-metalium/tensor_accessor_args.hpp). For an
// interleaved buffer the compile-time args are {ArgConfig bits (IsDram = 2), aligned_page_size}.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include <tt-metalium/mesh_buffer.hpp>

namespace tensor_accessor {
enum class ArgConfig : std::uint8_t {
  None = 0,
  Sharded = 1 << 0,
  IsDram = 1 << 1,
  RuntimeRank = 1 << 2,
  RuntimeNumBanks = 1 << 3,
  RuntimeTensorShape = 1 << 4,
  RuntimeShardShape = 1 << 5,
  RuntimeBankCoords = 1 << 6
};
} // namespace tensor_accessor

namespace tt::tt_metal {
class TensorAccessorArgs {
public:
  TensorAccessorArgs() = default;
  explicit TensorAccessorArgs(const distributed::MeshBuffer& buffer)
      : is_dram_(buffer.is_dram()),
        aligned_page_size_(static_cast<std::uint32_t>(buffer.aligned_page_size())) {}
  explicit TensorAccessorArgs(const distributed::MeshBuffer* buffer)
      : TensorAccessorArgs(*buffer) {}
  explicit TensorAccessorArgs(const std::shared_ptr<distributed::MeshBuffer>& buffer)
      : TensorAccessorArgs(*buffer) {}
  explicit TensorAccessorArgs(const Buffer& buffer)
      : is_dram_(buffer.is_dram()),
        aligned_page_size_(static_cast<std::uint32_t>(buffer.aligned_page_size())) {}
  explicit TensorAccessorArgs(const Buffer* buffer) : TensorAccessorArgs(*buffer) {}

  void append_to(std::vector<std::uint32_t>& compile_time_args) const {
    const auto args = get_compile_time_args();
    compile_time_args.insert(compile_time_args.end(), args.begin(), args.end());
  }
  void append_to(std::vector<std::uint32_t>& compile_time_args,
                 std::vector<std::uint32_t>& /*common_rt_args*/) const {
    append_to(compile_time_args);
  }
  std::vector<std::uint32_t> get_compile_time_args() const {
    const std::uint32_t config =
        is_dram_ ? static_cast<std::uint32_t>(tensor_accessor::ArgConfig::IsDram) : 0u;
    return {config, aligned_page_size_};
  }
  std::vector<std::uint32_t> get_common_runtime_args() const { return {}; }

private:
  bool is_dram_ = true;
  std::uint32_t aligned_page_size_ = 0;
};
} // namespace tt::tt_metal
