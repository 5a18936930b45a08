// Device-side TensorAccessor (mirrors tt_metal/hw/inc/api/tensor/tensor_accessor{,_args}.h) for
// interleaved buffers: compile-time args {ArgConfig bits, aligned page size} at CTA_OFFSET.
#pragma once
#include <cstddef>
#include <cstdint>

#include "api/compile_time_args.h"
#include "tk_emulator/device_api.hpp"

namespace tensor_accessor {
constexpr std::size_t UNKNOWN = static_cast<std::size_t>(-1);
}

template <std::size_t CTA_OFFSET, std::size_t CRTA_OFFSET = tensor_accessor::UNKNOWN>
struct TensorAccessorArgs {
  static constexpr std::uint32_t ArgsConfig = get_ct_arg<CTA_OFFSET>();
  static_assert((ArgsConfig & 1u) == 0,
                "the TileKit emulator supports interleaved TensorAccessors only");
  static constexpr bool IsDram = (ArgsConfig & 2u) != 0;
  static constexpr std::uint32_t AlignedPageSize = get_ct_arg<CTA_OFFSET + 1>();
  static constexpr std::uint32_t NumArgsCT = 2;

  static constexpr std::uint32_t next_compile_time_args_offset() { return CTA_OFFSET + NumArgsCT; }
  static constexpr std::uint32_t next_common_runtime_args_offset() {
    return CRTA_OFFSET == tensor_accessor::UNKNOWN ? 0 : static_cast<std::uint32_t>(CRTA_OFFSET);
  }
  static constexpr std::uint32_t num_compile_time_args() { return NumArgsCT; }
};

template <typename DSpec>
struct TensorAccessor {
  TensorAccessor(const DSpec& /*args*/, const std::size_t bank_base_address_in,
                 const std::uint32_t page_size_in = DSpec::AlignedPageSize)
      : bank_base_address(static_cast<std::uint32_t>(bank_base_address_in)),
        page_size(page_size_in) {}

  std::uint64_t get_noc_addr(std::uint32_t page_id, std::uint32_t offset = 0,
                             std::uint8_t /*noc*/ = 0) const {
    return ::tk::rt::emu::interleaved_page_addr(DSpec::IsDram, bank_base_address,
                                                DSpec::AlignedPageSize, page_id, offset);
  }
  std::uint32_t get_aligned_page_size() const { return DSpec::AlignedPageSize; }
  bool is_local_page(std::uint32_t /*page_id*/) const { return false; }

  std::uint32_t bank_base_address;
  std::uint32_t page_size;
};
