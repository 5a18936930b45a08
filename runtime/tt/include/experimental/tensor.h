// A TensorAccessor page as a Device 2.0 Noc endpoint (mirrors
// tt_metal/hw/inc/experimental/tensor.h): its NoC address for page_id plus offset_bytes.
#pragma once
#include <cstdint>

#include "api/tensor/tensor_accessor.h"
#include "experimental/noc.h"

namespace experimental {

template <typename DSpecT>
struct noc_traits_t<TensorAccessor<DSpecT>> {
  struct src_args_type {
    uint32_t page_id{};
    uint32_t offset_bytes = 0;
  };
  struct dst_args_type {
    uint32_t page_id{};
    uint32_t offset_bytes = 0;
  };
  template <Noc::AddressType address_type>
  static auto src_addr(const TensorAccessor<DSpecT>& src, const Noc& noc,
                       const src_args_type& args) {
    static_assert(address_type == Noc::AddressType::NOC, "a TensorAccessor page is remote");
    return src.get_noc_addr(args.page_id, args.offset_bytes, noc.get_noc_id());
  }
  template <Noc::AddressType address_type>
  static auto dst_addr(const TensorAccessor<DSpecT>& dst, const Noc& noc,
                       const dst_args_type& args) {
    static_assert(address_type == Noc::AddressType::NOC, "a TensorAccessor page is remote");
    return dst.get_noc_addr(args.page_id, args.offset_bytes, noc.get_noc_id());
  }
};

} // namespace experimental
