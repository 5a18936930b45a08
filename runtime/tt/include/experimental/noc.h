// Device 2.0 NoC object (mirrors tt_metal/hw/inc/experimental/noc.h): async_read/async_write
// between endpoints described by noc_traits_t (a TensorAccessor page, a CircularBuffer's window),
// and the barriers. Only the non-transaction-id, non-multicast forms are mirrored.
#pragma once
#include <cstdint>
#include <type_traits>

#include "api/dataflow/dataflow_api.h"

namespace experimental {

template <typename T>
struct noc_traits_t;

class Noc {
public:
  enum class AddressType { NOC, LOCAL_L1 };
  enum class TxnIdMode { ENABLED, DISABLED };
  enum class ResponseMode { NON_POSTED, POSTED };
  enum class VcSelection { DEFAULT, CUSTOM };

  static constexpr uint32_t INVALID_TXN_ID = 0xFFFFFFFF;

  Noc() : noc_id_(noc_index) {}
  explicit Noc(uint8_t noc_id) : noc_id_(noc_id) {}
  uint8_t get_noc_id() const { return noc_id_; }

private:
  template <typename T>
  using src_args_t = typename noc_traits_t<T>::src_args_type;
  template <typename T>
  using dst_args_t = typename noc_traits_t<T>::dst_args_type;
  template <AddressType address_type>
  using addr_underlying_t =
      std::conditional_t<address_type == AddressType::LOCAL_L1, uintptr_t, uint64_t>;

  template <AddressType address_type, typename Src>
  auto get_src_ptr(const Src& src, const src_args_t<Src>& src_args) const {
    return addr_underlying_t<address_type>{
        noc_traits_t<Src>::template src_addr<address_type>(src, *this, src_args)};
  }
  template <AddressType address_type, typename Dst>
  auto get_dst_ptr(const Dst& dst, const dst_args_t<Dst>& dst_args) const {
    return addr_underlying_t<address_type>{
        noc_traits_t<Dst>::template dst_addr<address_type>(dst, *this, dst_args)};
  }

public:
  template <TxnIdMode txn_id_mode = TxnIdMode::DISABLED,
            uint32_t max_page_size = NOC_MAX_BURST_SIZE + 1, bool enable_noc_tracing = true,
            typename Src, typename Dst>
  void async_read(const Src& src, const Dst& dst, uint32_t size_bytes,
                  const src_args_t<Src>& src_args, const dst_args_t<Dst>& dst_args,
                  uint32_t read_req_vc = NOC_UNICAST_WRITE_VC,
                  uint32_t /*trid*/ = INVALID_TXN_ID) const {
    static_assert(txn_id_mode == TxnIdMode::DISABLED,
                  "the emulator mirrors Noc::async_read without transaction ids");
    noc_async_read<max_page_size, enable_noc_tracing>(
        get_src_ptr<AddressType::NOC>(src, src_args),
        static_cast<uint32_t>(get_dst_ptr<AddressType::LOCAL_L1>(dst, dst_args)), size_bytes,
        noc_id_, read_req_vc);
  }

  template <TxnIdMode txn_id_mode = TxnIdMode::DISABLED,
            ResponseMode response_mode = ResponseMode::NON_POSTED,
            uint32_t max_page_size = NOC_MAX_BURST_SIZE + 1, bool enable_noc_tracing = true,
            typename Src, typename Dst>
  void async_write(const Src& src, const Dst& dst, uint32_t size_bytes,
                   const src_args_t<Src>& src_args, const dst_args_t<Dst>& dst_args,
                   uint32_t vc = NOC_UNICAST_WRITE_VC, uint32_t /*trid*/ = INVALID_TXN_ID) const {
    static_assert(txn_id_mode == TxnIdMode::DISABLED,
                  "the emulator mirrors Noc::async_write without transaction ids");
    noc_async_write<max_page_size, enable_noc_tracing, response_mode == ResponseMode::POSTED>(
        static_cast<uint32_t>(get_src_ptr<AddressType::LOCAL_L1>(src, src_args)),
        get_dst_ptr<AddressType::NOC>(dst, dst_args), size_bytes, noc_id_, vc);
  }

  // The read state of this NoC (the SDK's command-buffer registers, which set_async_read_state
  // programs): the source core's NoC coordinates and the size. async_read_with_state reads from
  // those coordinates at the source's local address; with max_page_size at most one burst (one
  // packet) the size is the state's, else the one given.
  template <VcSelection vc_selection = VcSelection::DEFAULT,
            uint32_t max_page_size = NOC_MAX_BURST_SIZE + 1, typename Src>
  void set_async_read_state(const Src& src, uint32_t size_bytes, const src_args_t<Src>& src_args,
                            uint8_t /*vc*/ = 0) const {
    ::tk::rt::emu::noc_read_state_set(noc_id_, get_src_ptr<AddressType::NOC>(src, src_args),
                                      size_bytes);
  }
  template <VcSelection vc_selection = VcSelection::DEFAULT,
            uint32_t max_page_size = NOC_MAX_BURST_SIZE + 1, typename Src, typename Dst>
  void async_read_with_state(const Src& src, const Dst& dst, uint32_t size_bytes,
                             const src_args_t<Src>& src_args, const dst_args_t<Dst>& dst_args,
                             uint8_t /*vc*/ = 0) const {
    const ::tk::rt::emu::NocReadState state = ::tk::rt::emu::noc_read_state(noc_id_);
    const uint64_t local = static_cast<uint32_t>(get_src_ptr<AddressType::NOC>(src, src_args));
    noc_async_read((state.src & ~uint64_t{0xFFFFFFFF}) | local,
                   static_cast<uint32_t>(get_dst_ptr<AddressType::LOCAL_L1>(dst, dst_args)),
                   max_page_size <= NOC_MAX_BURST_SIZE ? state.size : size_bytes, noc_id_);
  }

  void async_read_barrier(uint32_t /*trid*/ = INVALID_TXN_ID) const {
    noc_async_read_barrier(noc_id_);
  }
  void async_write_barrier(uint32_t /*trid*/ = INVALID_TXN_ID) const {
    noc_async_write_barrier(noc_id_);
  }
  void async_writes_flushed(uint32_t /*trid*/ = INVALID_TXN_ID) const {
    noc_async_writes_flushed(noc_id_);
  }
  void async_full_barrier() const { noc_async_full_barrier(noc_id_); }

private:
  uint8_t noc_id_;
};

} // namespace experimental
