// SFPU unary (SDK style, programming_examples/eltwise_sfpu/kernels/compute/eltwise_sfpu.cpp); the
// op is chosen with -DSFPU_OP_INIT / -DSFPU_OP (default exp), like the SDK's defines-driven unary
// kernels; -DSFPU_OP_ARGS gives an op's arguments after the DST index; -DPACK_RELU turns on the
// packer's ReLU.
#include <cstdint>

#include "api/compute/compute_kernel_api.h"
#include "api/compute/eltwise_unary/activations.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/eltwise_unary/elu.h"
#include "api/compute/eltwise_unary/erf_erfc.h"
#include "api/compute/eltwise_unary/exp.h"
#include "api/compute/eltwise_unary/gelu.h"
#include "api/compute/eltwise_unary/log1p.h"
#include "api/compute/eltwise_unary/recip.h"
#include "api/compute/eltwise_unary/relu.h"
#include "api/compute/eltwise_unary/rounding.h"
#include "api/compute/eltwise_unary/rsqrt.h"
#include "api/compute/eltwise_unary/softplus.h"
#include "api/compute/eltwise_unary/sqrt.h"
#include "api/compute/eltwise_unary/trigonometry.h"
#include "api/compute/tile_move_copy.h"

#ifndef SFPU_OP
#define SFPU_OP_INIT exp_tile_init
#define SFPU_OP exp_tile
#endif
#ifndef SFPU_OP_ARGS
#define SFPU_OP_ARGS // the op's arguments after the DST index (softplus: ", beta, 1/beta, thr")
#endif

void kernel_main() {
  const uint32_t n_tiles = get_arg_val<uint32_t>(0);
  constexpr auto cb_in0 = tt::CBIndex::c_0;
  constexpr auto cb_out0 = tt::CBIndex::c_16;

  init_sfpu(cb_in0, cb_out0);
#ifdef PACK_RELU // the packer writes max(value, 0) (as TTNN's SDPA packs its unclamped exp)
  PACK((llk_pack_relu_config(ReluType::ZERO_RELU)));
#endif
  SFPU_OP_INIT();
  for (uint32_t i = 0; i < n_tiles; i++) {
    tile_regs_acquire();
    cb_wait_front(cb_in0, 1);
    copy_tile(cb_in0, 0, 0);
    SFPU_OP(0 SFPU_OP_ARGS);
    tile_regs_commit();
    tile_regs_wait();
    cb_reserve_back(cb_out0, 1);
    pack_tile(0, cb_out0);
    cb_pop_front(cb_in0, 1);
    tile_regs_release();
    cb_push_back(cb_out0, 1);
  }
}
