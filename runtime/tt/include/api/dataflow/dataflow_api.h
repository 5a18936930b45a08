// Data-movement kernel API (mirrors tt_metal/hw/inc/api/dataflow/dataflow_api.h, tt-metal main
// 2026-04). Same names and signatures; the bodies call into the emulator
// (tk_emulator/device_api.hpp).
#pragma once
#if !defined(KERNEL_BUILD)
#error "dataflow_api.h is for kernels (KERNEL_BUILD is not defined)"
#endif
#include <stdint.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "api/compile_time_args.h"
#include "api/debug/assert.h"
#include "api/tensor/tensor_accessor.h"
#include "dev_mem_map.h"
#include "hostdevcommon/common_values.hpp"
#include "hostdevcommon/kernel_structs.h"
#include "internal/circular_buffer_interface.h"
#include "internal/tt-1xx/tensix_types.h"
#include "tk_emulator/device_api.hpp"

#ifndef FORCE_INLINE
#define FORCE_INLINE inline __attribute__((always_inline))
#endif
#define tt_l1_ptr
#define tt_reg_ptr
#ifndef NOC_INDEX
#define NOC_INDEX 0
#endif
#define NOC_MAX_BURST_SIZE 8192
#define NOC_UNICAST_WRITE_VC 1
#define NOC_MULTICAST_WRITE_VC 4

constexpr std::uint8_t noc_index = NOC_INDEX;
#define my_x (::tk::rt::emu::my_noc_x())
#define my_y (::tk::rt::emu::my_noc_y())

#include "tk_emulator/logical_core.h"
// DEVICE_PRINT, which the SDK's dataflow_api.h reaches through internal/debug/sanitize.h.
#include "api/debug/device_print.h"

enum class ProgrammableCoreType { TENSIX = 0, ACTIVE_ETH = 1, IDLE_ETH = 2 };

// ---- arguments ----------------------------------------------------------------------------------
template <typename T>
FORCE_INLINE T get_arg_val(int arg_idx) {
  return ::tk::rt::emu::arg_as<T>(::tk::rt::emu::runtime_arg(arg_idx));
}
template <typename T>
FORCE_INLINE T get_common_arg_val(int arg_idx) {
  return ::tk::rt::emu::arg_as<T>(::tk::rt::emu::common_runtime_arg(arg_idx));
}

// ---- circular buffers ---------------------------------------------------------------------------
FORCE_INLINE void cb_reserve_back(int32_t operand, int32_t num_pages) {
  ::tk::rt::emu::cb_reserve_back(operand, num_pages);
}
FORCE_INLINE void cb_push_back(const int32_t operand, const int32_t num_pages) {
  ::tk::rt::emu::cb_push_back(operand, num_pages);
}
FORCE_INLINE void cb_wait_front(int32_t operand, int32_t num_pages) {
  ::tk::rt::emu::cb_wait_front(operand, num_pages);
}
FORCE_INLINE void cb_pop_front(int32_t operand, int32_t num_pages) {
  ::tk::rt::emu::cb_pop_front(operand, num_pages);
}
inline bool cb_pages_reservable_at_back(int32_t operand, int32_t num_pages) {
  return ::tk::rt::emu::cb_pages_reservable_at_back(operand, num_pages);
}
inline bool cb_pages_available_at_front(int32_t operand, int32_t num_pages) {
  return ::tk::rt::emu::cb_pages_available_at_front(operand, num_pages);
}
FORCE_INLINE uint32_t get_write_ptr(uint32_t operand) {
  return ::tk::rt::emu::cb_write_ptr(operand);
}
FORCE_INLINE uint32_t get_read_ptr(uint32_t operand) {
  return ::tk::rt::emu::cb_read_ptr(operand);
}

#ifdef DATA_FORMATS_DEFINED
// From the JIT-generated descriptors, like chlkc_descriptors.h on the device.
constexpr int32_t get_tile_size(const int32_t operand) {
  return static_cast<int32_t>(unpack_tile_size[operand]);
}
constexpr DataFormat get_dataformat(const int32_t operand) {
  return static_cast<DataFormat>(unpack_src_format[operand]);
}
constexpr uint32_t get_tile_hw(const int32_t /*operand*/) {
  return 1024;
}
constexpr uint32_t get_tile_num_faces(const int32_t /*operand*/) {
  return 4;
}
#endif

// ---- NoC addresses ------------------------------------------------------------------------------
FORCE_INLINE uint64_t get_noc_addr(uint32_t noc_x, uint32_t noc_y, uint32_t addr,
                                   uint8_t /*noc*/ = noc_index) {
  return ::tk::rt::emu::noc_xy_addr(noc_x, noc_y, addr);
}
FORCE_INLINE std::uint64_t get_noc_addr(std::uint32_t addr, uint8_t /*noc*/ = noc_index) {
  return ::tk::rt::emu::noc_local_addr(addr);
}

// The NoC address of `bank_address_offset` in DRAM bank (DRAM) or L1 bank (a worker core's L1)
// `bank_id` (tt_metal/hw/inc/internal/dataflow/dataflow_api_addrgen.h; the n150's banks have no
// per-bank offset): page `bank_id` of an interleaved buffer based at the offset.
template <bool DRAM>
FORCE_INLINE uint64_t get_noc_addr_from_bank_id(uint32_t bank_id, uint32_t bank_address_offset,
                                                uint8_t /*noc*/ = noc_index) {
  ::tk::rt::emu::check_bank_id(DRAM, bank_id);
  return ::tk::rt::emu::interleaved_page_addr(DRAM, bank_address_offset, 0, bank_id, 0);
}
FORCE_INLINE uint64_t get_noc_multicast_addr(uint32_t noc_x_start, uint32_t noc_y_start,
                                             uint32_t noc_x_end, uint32_t noc_y_end, uint32_t addr,
                                             uint8_t /*noc*/ = noc_index) {
  return ::tk::rt::emu::noc_multicast_addr(noc_x_start, noc_y_start, noc_x_end, noc_y_end, addr);
}

template <bool DRAM>
struct InterleavedAddrGen {
  uint32_t bank_base_address;
  uint32_t page_size;
  FORCE_INLINE uint64_t get_noc_addr(const uint32_t id, const uint32_t offset = 0,
                                     uint8_t /*noc*/ = noc_index) const {
    const uint32_t align = DRAM ? 32 : 16;
    const uint32_t aligned = (page_size + align - 1) / align * align;
    return ::tk::rt::emu::interleaved_page_addr(DRAM, bank_base_address, aligned, id, offset);
  }
};

template <bool DRAM, uint32_t tile_hw = 1024>
struct InterleavedAddrGenFast {
  uint32_t bank_base_address;
  uint32_t page_size;
  DataFormat data_format;
  FORCE_INLINE uint64_t get_noc_addr(const uint32_t id, const uint32_t offset = 0,
                                     uint8_t /*noc*/ = noc_index) const {
    const uint32_t align = DRAM ? 32 : 16;
    const uint32_t aligned = (page_size + align - 1) / align * align;
    return ::tk::rt::emu::interleaved_page_addr(DRAM, bank_base_address, aligned, id, offset);
  }
};

namespace tk_emu_detail {
template <typename T, typename = void>
struct is_addrgen : std::false_type {};
template <typename T>
struct is_addrgen<T,
                  std::void_t<decltype(std::declval<const T&>().get_noc_addr(0u, 0u, uint8_t{0}))>>
    : std::true_type {};
} // namespace tk_emu_detail

template <typename AddrGen, typename = std::enable_if_t<tk_emu_detail::is_addrgen<AddrGen>::value>>
FORCE_INLINE uint64_t get_noc_addr(const uint32_t id, const AddrGen& addrgen, uint32_t offset = 0,
                                   uint8_t noc = noc_index) {
  return addrgen.get_noc_addr(id, offset, noc);
}

// ---- NoC transfers (data lands immediately; in timing mode barriers wait for the modelled time)
// --
template <uint32_t max_page_size = NOC_MAX_BURST_SIZE + 1, bool enable_noc_tracing = true>
inline void noc_async_read(uint64_t src_noc_addr, uint32_t dst_local_l1_addr, uint32_t size,
                           uint8_t /*noc*/ = noc_index,
                           uint32_t /*read_req_vc*/ = NOC_UNICAST_WRITE_VC) {
  ::tk::rt::emu::noc_read(src_noc_addr, dst_local_l1_addr, size);
}
template <uint32_t max_page_size = NOC_MAX_BURST_SIZE + 1, bool enable_noc_tracing = true,
          bool posted = false>
inline void noc_async_write(uint32_t src_local_l1_addr, uint64_t dst_noc_addr, uint32_t size,
                            uint8_t /*noc*/ = noc_index, uint32_t /*vc*/ = NOC_UNICAST_WRITE_VC) {
  ::tk::rt::emu::noc_write(src_local_l1_addr, dst_noc_addr, size);
}
template <typename AddrGen, bool enable_noc_tracing = true>
FORCE_INLINE void noc_async_read_page(const uint32_t id, const AddrGen& addrgen,
                                      uint32_t dst_local_l1_addr, uint32_t offset = 0,
                                      uint8_t noc = noc_index) {
  ::tk::rt::emu::noc_read(addrgen.get_noc_addr(id, offset, noc), dst_local_l1_addr,
                          addrgen.page_size - offset);
}
template <typename AddrGen, bool enable_noc_tracing = true, bool posted = false>
FORCE_INLINE void noc_async_write_page(const uint32_t id, const AddrGen& addrgen,
                                       uint32_t src_local_l1_addr, uint32_t size = 0,
                                       uint32_t offset = 0, uint8_t noc = noc_index) {
  ::tk::rt::emu::noc_write(src_local_l1_addr, addrgen.get_noc_addr(id, offset, noc),
                           size ? size : addrgen.page_size);
}
template <typename DSpec>
[[deprecated("Use <typename AddrGen> noc_async_read_page instead.")]] FORCE_INLINE void
noc_async_read_tile(const uint32_t id, const TensorAccessor<DSpec>& addrgen,
                    uint32_t dst_local_l1_addr, uint32_t offset = 0, uint8_t noc = noc_index) {
  noc_async_read_page(id, addrgen, dst_local_l1_addr, offset, noc);
}
template <bool DRAM, uint32_t tile_hw>
[[deprecated("Use <typename AddrGen> noc_async_read_page instead.")]] FORCE_INLINE void
noc_async_read_tile(const uint32_t id, const InterleavedAddrGenFast<DRAM, tile_hw>& addrgen,
                    uint32_t dst_local_l1_addr, uint32_t offset = 0, uint8_t noc = noc_index) {
  noc_async_read_page(id, addrgen, dst_local_l1_addr, offset, noc);
}
template <typename DSpec>
[[deprecated("Use <typename AddrGen> noc_async_write_page instead.")]] FORCE_INLINE void
noc_async_write_tile(const uint32_t id, const TensorAccessor<DSpec>& addrgen,
                     uint32_t src_local_l1_addr, uint8_t noc = noc_index) {
  noc_async_write_page(id, addrgen, src_local_l1_addr, 0, 0, noc);
}
template <bool DRAM, uint32_t tile_hw>
[[deprecated("Use <typename AddrGen> noc_async_write_page instead.")]] FORCE_INLINE void
noc_async_write_tile(const uint32_t id, const InterleavedAddrGenFast<DRAM, tile_hw>& addrgen,
                     uint32_t src_local_l1_addr, uint8_t noc = noc_index) {
  noc_async_write_page(id, addrgen, src_local_l1_addr, 0, 0, noc);
}

inline void noc_async_write_multicast(uint32_t src_local_l1_addr, uint64_t dst_noc_addr_multicast,
                                      uint32_t size, uint32_t num_dests, bool /*linked*/ = false,
                                      uint8_t noc = noc_index,
                                      uint8_t /*vc*/ = NOC_MULTICAST_WRITE_VC) {
  ::tk::rt::emu::noc_write_multicast(src_local_l1_addr, dst_noc_addr_multicast, size, num_dests,
                                     false, noc);
}
inline void noc_async_write_multicast_loopback_src(uint32_t src_local_l1_addr,
                                                   uint64_t dst_noc_addr_multicast, uint32_t size,
                                                   uint32_t num_dests, bool /*linked*/ = false,
                                                   uint8_t noc = noc_index) {
  ::tk::rt::emu::noc_write_multicast(src_local_l1_addr, dst_noc_addr_multicast, size, num_dests,
                                     true, noc);
}

inline void noc_async_read_barrier(uint8_t /*noc*/ = noc_index) {
  ::tk::rt::emu::noc_barrier(0);
}
inline void noc_async_write_barrier(uint8_t /*noc*/ = noc_index) {
  ::tk::rt::emu::noc_barrier(1);
}
inline void noc_async_writes_flushed(uint8_t /*noc*/ = noc_index) {
  ::tk::rt::emu::noc_barrier(2);
}
inline void noc_async_posted_writes_flushed(uint8_t /*noc*/ = noc_index) {
  ::tk::rt::emu::noc_barrier(2);
}
inline void noc_async_atomic_barrier(uint8_t /*noc*/ = noc_index) {
  ::tk::rt::emu::noc_barrier(3);
}
inline void noc_async_full_barrier(uint8_t /*noc*/ = noc_index) {
  ::tk::rt::emu::noc_barrier(4);
}

// ---- semaphores ---------------------------------------------------------------------------------
template <ProgrammableCoreType type = ProgrammableCoreType::TENSIX>
FORCE_INLINE uintptr_t get_semaphore(uint32_t semaphore_id) {
  return ::tk::rt::emu::semaphore_addr(semaphore_id);
}
FORCE_INLINE void noc_semaphore_wait(volatile tt_l1_ptr uint32_t* sem_addr, uint32_t val) {
  ::tk::rt::emu::semaphore_wait(sem_addr, val, false);
}
FORCE_INLINE void noc_semaphore_wait_min(volatile tt_l1_ptr uint32_t* sem_addr, uint32_t val) {
  ::tk::rt::emu::semaphore_wait(sem_addr, val, true);
}
FORCE_INLINE void noc_semaphore_set(volatile tt_l1_ptr uint32_t* sem_addr, uint32_t val) {
  ::tk::rt::emu::semaphore_set(sem_addr, val);
}
inline void noc_semaphore_set_remote(uint32_t src_local_l1_addr, uint64_t dst_noc_addr,
                                     uint8_t /*noc*/ = noc_index) {
  ::tk::rt::emu::noc_write(src_local_l1_addr, dst_noc_addr, 4);
}
inline void noc_semaphore_set_multicast(uint32_t src_local_l1_addr, uint64_t dst_noc_addr_multicast,
                                        uint32_t num_dests, bool /*linked*/ = false,
                                        uint8_t noc = noc_index) {
  ::tk::rt::emu::noc_write_multicast(src_local_l1_addr, dst_noc_addr_multicast, 4, num_dests, false,
                                     noc);
}
template <bool posted = false>
inline void noc_semaphore_inc(uint64_t addr, uint32_t incr, uint8_t /*noc_id*/ = noc_index,
                              uint8_t /*vc*/ = 0) {
  ::tk::rt::emu::noc_semaphore_inc(addr, incr);
}
