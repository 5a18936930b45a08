// Device 2.0 typed access to the core's own L1 (mirrors tt_metal/hw/inc/experimental/
// core_local_mem.h: CoreLocalMem<T, AddressType>, and its noc_traits_t as a NoC read's destination
// or a write's source, local L1 only). The emulator's L1 is addressable by kernels, so the pointer
// it hands out is the L1 the NoC reads and writes. (The SDK's scoped_lock, a debug-profiler
// annotation, is not mirrored.)
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "api/dataflow/dataflow_api.h"
#if !defined(COMPILE_FOR_TRISC)
#include "experimental/noc.h"
#endif

namespace experimental {

template <typename T, typename AddressType = uintptr_t>
class CoreLocalMem {
  using difference_type = std::ptrdiff_t;
  static_assert(std::is_integral<AddressType>::value, "AddressType must be an integral type");
  static_assert(std::is_unsigned<AddressType>::value,
                "AddressType must be unsigned for address representation");

public:
  CoreLocalMem(AddressType address) : address_(address) {}
  CoreLocalMem(T* ptr) : address_(reinterpret_cast<AddressType>(ptr)) {}
  CoreLocalMem(const CoreLocalMem&) = default;
  CoreLocalMem& operator=(const CoreLocalMem&) = default;

  tt_l1_ptr T* get_unsafe_ptr() const { return reinterpret_cast<tt_l1_ptr T*>(address_); }
  AddressType get_address() const { return address_; }
  T& operator[](uint32_t index) const { return get_unsafe_ptr()[index]; }
  T& operator*() const { return get_unsafe_ptr()[0]; }
  tt_l1_ptr T* operator->() const { return get_unsafe_ptr(); }
  CoreLocalMem& operator+=(difference_type offset) {
    address_ += offset * sizeof(T);
    return *this;
  }
  CoreLocalMem& operator-=(difference_type offset) {
    address_ -= offset * sizeof(T);
    return *this;
  }
  CoreLocalMem& operator++() { return *this += 1; }
  CoreLocalMem& operator--() { return *this -= 1; }
  CoreLocalMem operator++(int) {
    CoreLocalMem before = *this;
    ++*this;
    return before;
  }
  CoreLocalMem operator--(int) {
    CoreLocalMem before = *this;
    --*this;
    return before;
  }
  CoreLocalMem operator+(difference_type offset) const {
    return CoreLocalMem(static_cast<AddressType>(address_ + offset * sizeof(T)));
  }
  CoreLocalMem operator-(difference_type offset) const {
    return CoreLocalMem(static_cast<AddressType>(address_ - offset * sizeof(T)));
  }
  difference_type operator-(const CoreLocalMem& other) const {
    return (static_cast<difference_type>(address_) - static_cast<difference_type>(other.address_)) /
           static_cast<difference_type>(sizeof(T));
  }
  bool operator==(const CoreLocalMem& other) const { return address_ == other.address_; }
  bool operator!=(const CoreLocalMem& other) const { return address_ != other.address_; }
  bool operator<(const CoreLocalMem& other) const { return address_ < other.address_; }

private:
  AddressType address_;
};

#if !defined(COMPILE_FOR_TRISC)
template <typename T, typename AddressType>
struct noc_traits_t<CoreLocalMem<T, AddressType>> {
  struct src_args_type {
    AddressType offset_bytes = 0;
  };
  struct dst_args_type {
    AddressType offset_bytes = 0;
  };
  template <Noc::AddressType address_type>
  static auto src_addr(const CoreLocalMem<T, AddressType>& src, const Noc&,
                       const src_args_type& args) {
    static_assert(address_type == Noc::AddressType::LOCAL_L1,
                  "CoreLocalMem can only be used as local L1 source");
    return src.get_address() + args.offset_bytes;
  }
  template <Noc::AddressType address_type>
  static auto dst_addr(const CoreLocalMem<T, AddressType>& dst, const Noc&,
                       const dst_args_type& args) {
    static_assert(address_type == Noc::AddressType::LOCAL_L1,
                  "CoreLocalMem can only be used as local L1 dest");
    return dst.get_address() + args.offset_bytes;
  }
};
#endif

} // namespace experimental
