// Reads word 0 of each of the `pages` pages of this core's shard of a sharded L1 buffer through
// c_0, a CB the host placed on that buffer (set_globally_allocated_address), and writes
// word + 1000 * tag + 100 * k into word 0 of page k of this core's shard of the output buffer
// (its L1 address a runtime argument): where each page of both buffers lives shows in the result.
#include <cstdint>

void kernel_main() {
  const uint32_t out = get_arg_val<uint32_t>(0);
  const uint32_t pages = get_arg_val<uint32_t>(1);
  const uint32_t page_bytes = get_arg_val<uint32_t>(2);
  const uint32_t tag = get_arg_val<uint32_t>(3);
  cb_reserve_back(tt::CBIndex::c_0, pages);
  const uint32_t in = get_write_ptr(tt::CBIndex::c_0);
  cb_push_back(tt::CBIndex::c_0, pages);
  for (uint32_t k = 0; k < pages; ++k) {
    const uint32_t word = *reinterpret_cast<volatile uint32_t*>(in + k * page_bytes);
    *reinterpret_cast<volatile uint32_t*>(out + k * page_bytes) = word + 1000 * tag + 100 * k;
  }
}
