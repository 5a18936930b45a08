// A compute kernel in the style of TTNN's kernel_lib (reduce_helpers_compute.inl): the matmul of
// tile i of c_0 and tile i of c_1 into c_16 through the LLK halves (llk_unpack_AB_matmul, then
// llk_math_matmul), after state_configure and the raw LLK inits, reading what the JIT generates
// (DST_ACCUM_MODE, DST_SYNC_MODE, MATH_FIDELITY, the tile-shape arrays) and the CB interface in
// the compute kernel's 16-byte words. A descriptor with a value other than the host's
// ComputeConfig and CBs does not compile; a page size other than 2048 bytes skips the pack, and
// the writer then waits for good.
#include <cstdint>

#include "api/compute/matmul.h"
#include "api/compute/tile_move_copy.h"
#include "experimental/circular_buffer.h"
#include "tt-metalium/circular_buffer_constants.h"

static_assert(!DST_ACCUM_MODE, "ComputeConfig::fp32_dest_acc_en is false");
static_assert(DST_SYNC_MODE == DstSync::SyncHalf, "ComputeConfig::dst_full_sync_en is false");
static_assert(MATH_FIDELITY == ckernel::MathFidelity::HiFi2, "the host asks for HiFi2");
static_assert(unpack_tile_r_dim[tt::CBIndex::c_0] == 32 && pack_tile_c_dim[tt::CBIndex::c_16] == 32,
              "32x32 tiles");
static_assert(unpack_tile_size[tt::CBIndex::c_1] == 2048 &&
                  unpack_src_format[tt::CBIndex::c_1] == static_cast<int>(DataFormat::Float16_b),
              "bfloat16 tiles of 2048 bytes");

void kernel_main() {
  const uint32_t n_tiles = get_arg_val<uint32_t>(0);
  constexpr uint32_t in0 = tt::CBIndex::c_0, in1 = tt::CBIndex::c_1, out = tt::CBIndex::c_16;
  experimental::CircularBuffer a(in0), b(in1), c(out);
  mm_init(in0, in1, out);
  state_configure(in1, in0, __LINE__);
  llk_unpack_reconfig_data_format_srca<DST_ACCUM_MODE>(in0, in1);
  llk_math_reconfig_data_format_srca<DST_ACCUM_MODE>(in0, in1);
  llk_math_matmul_init<MATH_FIDELITY, MM_THROTTLE>(in0, in1, 0);
  llk_unpack_AB_matmul_init(in0, in1, 0);
  const uint32_t page_bytes = get_local_cb_interface(out).fifo_page_size
                              << CIRCULAR_BUFFER_COMPUTE_ADDR_SHIFT;
  for (uint32_t i = 0; i < n_tiles; i++) {
    a.wait_front(1);
    b.wait_front(1);
    tile_regs_acquire();
    llk_unpack_AB_matmul(in0, in1, 0, 0);
    llk_math_matmul<MATH_FIDELITY, MM_THROTTLE>(0);
    tile_regs_commit();
    a.pop_front(1);
    b.pop_front(1);
    tile_regs_wait();
    if (page_bytes == 2048) {
      c.reserve_back(1);
      pack_tile(0, out);
      c.push_back(1);
    }
    tile_regs_release();
  }
}
