// Shared by the block readers of matmul_multicore_reuse and matmul_multicore_reuse_mcast (the SDK's
// matmul_common/kernels/dataflow/reader_bmm_tile_layout*.cpp): their runtime arguments, reading one
// block of tiles from DRAM into a CB, and the two sides of the multicast handshake.
#pragma once
#include <cstdint>

#include "api/dataflow/dataflow_api.h"
#include "hostdevcommon/common_values.hpp"

namespace bmm {

// Where one operand's blocks lie in its tile-layout DRAM tensor: 8 runtime args.
struct Operand {
  uint32_t addr;              // the tensor's DRAM address
  uint32_t start_tile;        // first tile of the first block
  uint32_t stride_w;          // tile-id step along a block row
  uint32_t stride_h;          // tile-id step from one block row to the next
  uint32_t next_block_stride; // tile-id step from one K-block to the next
  uint32_t block_w;           // block width in tiles
  uint32_t block_h;           // block height in tiles
  uint32_t block_num_tiles;   // block_w * block_h
};

inline Operand operand_args(uint32_t first) {
  return {get_arg_val<uint32_t>(first),     get_arg_val<uint32_t>(first + 1),
          get_arg_val<uint32_t>(first + 2), get_arg_val<uint32_t>(first + 3),
          get_arg_val<uint32_t>(first + 4), get_arg_val<uint32_t>(first + 5),
          get_arg_val<uint32_t>(first + 6), get_arg_val<uint32_t>(first + 7)};
}

// Issues the reads of K-block `block` of `op` into L1 at `l1`, row-major; returns its size in
// bytes. The caller waits with noc_async_read_barrier().
template <typename Accessor>
inline uint32_t read_block(const Accessor& tensor, const Operand& op, uint32_t block, uint32_t l1,
                           uint32_t tile_bytes) {
  const uint32_t l1_start = l1;
  uint32_t row = op.start_tile + block * op.next_block_stride;
  for (uint32_t h = 0; h < op.block_h; ++h, row += op.stride_h) {
    uint32_t id = row;
    for (uint32_t w = 0; w < op.block_w; ++w, id += op.stride_w) {
      noc_async_read_page(id, tensor, l1);
      l1 += tile_bytes;
    }
  }
  return l1 - l1_start;
}

// One operand's multicast: 9 runtime args.
struct Mcast {
  // The receivers' NoC rectangle, starting at the corner this kernel's NoC starts from (the
  // smallest on NOC 0, the largest on NOC 1); used by the sender only.
  uint32_t start_x, start_y, end_x, end_y;
  uint32_t num_dests;          // receivers (the sender excluded)
  uint32_t sender_x, sender_y; // the sender's NoC coordinates; used by the receivers
  uint32_t sender_sem;         // L1 address of the semaphore the receivers increment when ready
  uint32_t receiver_sem;       // L1 address of the flag the sender sets VALID after the data
};

inline Mcast mcast_args(uint32_t first) {
  return {get_arg_val<uint32_t>(first),
          get_arg_val<uint32_t>(first + 1),
          get_arg_val<uint32_t>(first + 2),
          get_arg_val<uint32_t>(first + 3),
          get_arg_val<uint32_t>(first + 4),
          get_arg_val<uint32_t>(first + 5),
          get_arg_val<uint32_t>(first + 6),
          static_cast<uint32_t>(get_semaphore(get_arg_val<uint32_t>(first + 7))),
          static_cast<uint32_t>(get_semaphore(get_arg_val<uint32_t>(first + 8)))};
}

inline volatile tt_l1_ptr uint32_t* sem_ptr(uint32_t l1_addr) {
  return reinterpret_cast<volatile tt_l1_ptr uint32_t*>(l1_addr);
}

// Sender, once: its own receiver flag holds VALID, the value it multicasts after each block.
inline void sender_init(const Mcast& m) {
  *sem_ptr(m.receiver_sem) = VALID;
}

// Sender, per block (read into L1 at `l1`): waits until every receiver has reserved room for the
// block, then multicasts the block and, behind it, the VALID flag.
inline void send_block(const Mcast& m, uint32_t l1, uint32_t bytes) {
  noc_semaphore_wait(sem_ptr(m.sender_sem), m.num_dests);
  noc_semaphore_set(sem_ptr(m.sender_sem), 0);
  noc_async_write_multicast(l1, get_noc_multicast_addr(m.start_x, m.start_y, m.end_x, m.end_y, l1),
                            bytes, m.num_dests);
  // The flag goes on the same NoC and virtual channel as the data, so it cannot overtake it on
  // Wormhole; Blackhole issues the two from separate command FIFOs and needs the flush.
#ifdef ARCH_BLACKHOLE
  noc_async_writes_flushed();
#endif
  noc_semaphore_set_multicast(
      m.receiver_sem,
      get_noc_multicast_addr(m.start_x, m.start_y, m.end_x, m.end_y, m.receiver_sem), m.num_dests);
}

// Receiver, per block (its CB pages already reserved): clears its flag, tells the sender it is
// ready, and waits until the sender's flag (behind the data) arrives.
inline void receive_block(const Mcast& m) {
  noc_semaphore_set(sem_ptr(m.receiver_sem), INVALID);
  noc_semaphore_inc(get_noc_addr(m.sender_x, m.sender_y, m.sender_sem), 1);
  noc_semaphore_wait(sem_ptr(m.receiver_sem), VALID);
}

} // namespace bmm
