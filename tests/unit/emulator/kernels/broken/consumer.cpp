// Pops c_0 two pages at a time, ROUNDS times (default twice: the partner of reader.cpp's
// BREAK_EXACT_WRAP).
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

#ifndef ROUNDS
#define ROUNDS 2
#endif

void kernel_main() {
  for (uint32_t i = 0; i < ROUNDS; i++) {
    cb_wait_front(tt::CBIndex::c_0, 2);
    cb_pop_front(tt::CBIndex::c_0, 2);
  }
}
