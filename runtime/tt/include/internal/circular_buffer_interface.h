// A CB's local interface (mirrors tt_metal/hw/inc/internal/circular_buffer_interface.h:
// struct LocalCBInterface and `LocalCBInterface& get_local_cb_interface(uint32_t cb_id)`), which
// TTNN kernels read for a CB's page size (`get_local_cb_interface(cb).fifo_page_size`). The
// emulator fills it from the CB's state at each call: what a kernel reads is current, but what it
// writes into it is not seen by the emulator's CB (the SDK's CB calls move these pointers; a
// kernel that moves them itself is not modelled). As on the device, a compute kernel's interface
// holds addresses and sizes in 16-byte words (`cb_addr_shift`, CIRCULAR_BUFFER_COMPUTE_ADDR_SHIFT),
// a data-movement kernel's in bytes.
#pragma once
#include <cstdint>

#include <tk_emulator/device_api.hpp>
#include <tt-metalium/circular_buffer_constants.h>

#if defined(COMPILE_FOR_TRISC)
constexpr uint32_t cb_addr_shift = CIRCULAR_BUFFER_COMPUTE_ADDR_SHIFT;
#else
constexpr uint32_t cb_addr_shift = 0;
#endif

struct LocalCBInterface {
  uint32_t fifo_size;
  uint32_t fifo_limit; // range is inclusive of the limit
  uint32_t fifo_page_size;
  uint32_t fifo_num_pages;
  uint32_t fifo_rd_ptr;
  uint32_t fifo_wr_ptr;
  union {
    uint32_t tiles_acked_received_init;
    struct {
      uint16_t tiles_acked;
      uint16_t tiles_received;
    };
  };
  uint32_t fifo_wr_tile_ptr;
};

inline LocalCBInterface& get_local_cb_interface(uint32_t cb_id) {
  // The firmware's cb_interface[NUM_CIRCULAR_BUFFERS] (32 in a Wormhole build, 64 on Blackhole);
  // cb_interface() has refused an index past the device's count.
  static LocalCBInterface iface[NUM_CIRCULAR_BUFFERS];
  const ::tk::rt::emu::CbInterfaceState s = ::tk::rt::emu::cb_interface(cb_id);
  LocalCBInterface& i = iface[cb_id];
  i.fifo_size = s.size >> cb_addr_shift;
  i.fifo_limit = s.limit >> cb_addr_shift;
  i.fifo_page_size = s.page_size >> cb_addr_shift;
  i.fifo_num_pages = s.num_pages;
  i.fifo_rd_ptr = s.rd_ptr >> cb_addr_shift;
  i.fifo_wr_ptr = s.wr_ptr >> cb_addr_shift;
  i.tiles_acked = static_cast<uint16_t>(s.acked);
  i.tiles_received = static_cast<uint16_t>(s.received);
  i.fifo_wr_tile_ptr = 0; // the packer's in-order pointer: not modelled
  return i;
}
