// Helpers the kernels of opaque_call.cpp include: ttgen check follows only helpers defined in the
// kernel's own file, so a call to these is one it does not model.
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

inline uint32_t page_bytes(uint32_t cb) {
  return get_tile_size(cb);
}
