// Multicast sender (SDK style, matmul_common reader_bmm_tile_layout_in0_sender_*): reads one tile,
// waits until every receiver has reserved its CB, multicasts the tile, then flips the receivers'
// semaphore.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t src_addr = get_arg_val<uint32_t>(0);
  const uint32_t x0 = get_arg_val<uint32_t>(1), y0 = get_arg_val<uint32_t>(2);
  const uint32_t x1 = get_arg_val<uint32_t>(3), y1 = get_arg_val<uint32_t>(4);
  const uint32_t num_dests = get_arg_val<uint32_t>(5);
  const uint32_t sender_sem_addr = get_semaphore(get_arg_val<uint32_t>(6));
  const uint32_t receiver_sem_addr = get_semaphore(get_arg_val<uint32_t>(7));
  constexpr uint32_t cb = tt::CBIndex::c_0;
  const uint32_t tile_bytes = get_tile_size(cb);
  constexpr auto args = TensorAccessorArgs<0>();
  const auto src = TensorAccessor(args, src_addr, tile_bytes);

  cb_reserve_back(cb, 1);
  const uint32_t l1 = get_write_ptr(cb);
  noc_async_read_tile(0, src, l1);
  noc_async_read_barrier();

  volatile tt_l1_ptr uint32_t* sender_sem =
      reinterpret_cast<volatile tt_l1_ptr uint32_t*>(sender_sem_addr);
  noc_semaphore_wait(sender_sem, num_dests);
  noc_semaphore_set(sender_sem, 0);
  noc_async_write_multicast(l1, get_noc_multicast_addr(x0, y0, x1, y1, l1), tile_bytes, num_dests);
  volatile tt_l1_ptr uint32_t* receiver_sem =
      reinterpret_cast<volatile tt_l1_ptr uint32_t*>(receiver_sem_addr);
  noc_semaphore_set(receiver_sem, 1);
  noc_semaphore_set_multicast(receiver_sem_addr,
                              get_noc_multicast_addr(x0, y0, x1, y1, receiver_sem_addr), num_dests);
  noc_async_write_barrier();
  cb_push_back(cb, 1);
}
