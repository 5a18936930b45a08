// Device 2.0 circular buffer object (mirrors tt_metal/hw/inc/experimental/circular_buffer.h): the
// CB calls of the dataflow API on one CB, and its window as a Noc endpoint. In a compute kernel
// (COMPILE_FOR_TRISC) the calls are the compute CB calls (the SDK's LLK waits, pushes and pops)
// and there is no NoC endpoint, as in the SDK.
#pragma once
#include <cstdint>

#ifdef COMPILE_FOR_TRISC
#include "internal/circular_buffer_interface.h"
#include "tk_emulator/device_api.hpp"
#else
#include "experimental/noc.h"
#endif

namespace experimental {

class CircularBuffer {
public:
  explicit CircularBuffer(uint32_t cb_id) : cb_id_(cb_id) {}

  uint32_t get_cb_id() const { return cb_id_; }
#ifdef COMPILE_FOR_TRISC
  void reserve_back(int32_t num_pages) { ::tk::rt::emu::cb_reserve_back(cb_id_, num_pages); }
  void push_back(int32_t num_pages) { ::tk::rt::emu::cb_push_back(cb_id_, num_pages); }
  void wait_front(int32_t num_pages) { ::tk::rt::emu::cb_wait_front(cb_id_, num_pages); }
  void pop_front(int32_t num_pages) { ::tk::rt::emu::cb_pop_front(cb_id_, num_pages); }
#else
  void reserve_back(int32_t num_pages) { cb_reserve_back(cb_id_, num_pages); }
  void push_back(int32_t num_pages) { cb_push_back(cb_id_, num_pages); }
  void wait_front(int32_t num_pages) { cb_wait_front(cb_id_, num_pages); }
  void pop_front(int32_t num_pages) { cb_pop_front(cb_id_, num_pages); }
  uint32_t get_tile_size() const { return ::get_tile_size(cb_id_); }
  uint32_t get_write_ptr() const { return ::get_write_ptr(cb_id_); }
  uint32_t get_read_ptr() const { return ::get_read_ptr(cb_id_); }
#endif

private:
  uint32_t cb_id_;
};

#ifndef COMPILE_FOR_TRISC
/// As a read's destination, the CB's write pointer; as a write's source, its read pointer (plus
/// offset_bytes), both local L1 addresses.
template <>
struct noc_traits_t<CircularBuffer> {
  struct src_args_type {
    uint32_t offset_bytes{};
  };
  struct dst_args_type {
    uint32_t offset_bytes{};
  };
  template <Noc::AddressType address_type>
  static auto src_addr(const CircularBuffer& src, const Noc&, const src_args_type& args) {
    static_assert(address_type == Noc::AddressType::LOCAL_L1,
                  "a CircularBuffer is a local L1 endpoint");
    return src.get_read_ptr() + args.offset_bytes;
  }
  template <Noc::AddressType address_type>
  static auto dst_addr(const CircularBuffer& dst, const Noc&, const dst_args_type& args) {
    static_assert(address_type == Noc::AddressType::LOCAL_L1,
                  "a CircularBuffer is a local L1 endpoint");
    return dst.get_write_ptr() + args.offset_bytes;
  }
};
#endif

} // namespace experimental
