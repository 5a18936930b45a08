// The device's allocator as programs query it (mirrors tt_metal/api/tt-metalium/allocator.hpp):
// banks, bank sizes and alignments of the emulated device (MeshDevice::allocator()). The SDK's
// buffer bookkeeping and state extraction are not mirrored.
#pragma once
#include <cstdint>
#include <unordered_set>
#include <vector>

#include <tt-metalium/buffer_types.hpp>
#include <tt-metalium/core_coord.hpp>

namespace tt::tt_metal {
// The internal representation of an Allocator (the emulator's device model).
class AllocatorImpl;

class Allocator {
public:
  explicit Allocator(AllocatorImpl* _impl) : impl(_impl) {}

  std::uint32_t get_num_banks(const BufferType& buffer_type) const;
  DeviceAddr get_bank_size(const BufferType& buffer_type) const;
  std::uint32_t get_alignment(BufferType buffer_type) const;

private:
  AllocatorImpl* impl;
};
} // namespace tt::tt_metal
