// Helpers the kernels of opaque_call.cpp include, as a kernel library (TTNN's kernel_lib) is:
// ttgen check follows them where they are called, each parameter standing for its argument.
// push_recursive calls itself, which ttgen check does not follow: a call it does not model.
#pragma once
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

inline void push_pages(uint32_t cb, uint32_t n) {
  cb_reserve_back(cb, n);
  cb_push_back(cb, n);
}

inline void push_to(uint32_t which, uint32_t n) {
  cb_reserve_back(which == 0 ? tt::CBIndex::c_0 : tt::CBIndex::c_1, n);
  cb_push_back(which == 0 ? tt::CBIndex::c_0 : tt::CBIndex::c_1, n);
}

inline void push_recursive(uint32_t cb, uint32_t n) {
  if (n == 0)
    return;
  cb_reserve_back(cb, 1);
  cb_push_back(cb, 1);
  push_recursive(cb, n - 1);
}

inline uint32_t page_bytes(uint32_t cb) {
  return get_tile_size(cb);
}
