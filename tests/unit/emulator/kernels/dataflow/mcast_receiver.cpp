// Multicast receiver: reserves its CB page, tells the sender (semaphore increment), waits for the
// data.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t sender_x = get_arg_val<uint32_t>(0), sender_y = get_arg_val<uint32_t>(1);
  const uint32_t sender_sem_addr = get_semaphore(get_arg_val<uint32_t>(2));
  const uint32_t receiver_sem_addr = get_semaphore(get_arg_val<uint32_t>(3));
  constexpr uint32_t cb = tt::CBIndex::c_0;

  cb_reserve_back(cb, 1);
  volatile tt_l1_ptr uint32_t* receiver_sem =
      reinterpret_cast<volatile tt_l1_ptr uint32_t*>(receiver_sem_addr);
  noc_semaphore_set(receiver_sem, 0);
  noc_semaphore_inc(get_noc_addr(sender_x, sender_y, sender_sem_addr), 1);
  noc_semaphore_wait(receiver_sem, 1);
  cb_push_back(cb, 1);
}
