// The unary SFPU headers a compute kernel gets from the SFPU_OP_*_INCLUDE defines its host sets
// (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/sfpu_split_includes.h: one `#if MACRO` per
// header; TTNN's eltwise kernels include it and the program factory defines the macros of the ops
// it chains). Only the headers the emulator mirrors are here; a define of another is an error
// naming it, not a silent omission.
#pragma once

#if SFPU_OP_ERF_ERFC_INCLUDE
#include "api/compute/eltwise_unary/erf_erfc.h"
#endif
#if SFPU_OP_EXP_INCLUDE
#include "api/compute/eltwise_unary/exp.h"
#endif
#if SFPU_OP_GELU_INCLUDE
#include "api/compute/eltwise_unary/gelu.h"
#endif
#if SFPU_OP_SQRT_INCLUDE
#include "api/compute/eltwise_unary/sqrt.h"
#endif
#if SFPU_OP_RSQRT_INCLUDE
#include "api/compute/eltwise_unary/rsqrt.h"
#endif
#if SFPU_OP_RECIP_INCLUDE
#include "api/compute/eltwise_unary/recip.h"
#endif
#if SFPU_OP_RELU_FAMILY_INCLUDE
#include "api/compute/eltwise_unary/relu.h"
#endif
#if SFPU_OP_ELU_INCLUDE
#include "api/compute/eltwise_unary/elu.h"
#endif
#if SFPU_OP_NEG_INCLUDE
#include "api/compute/eltwise_unary/negative.h"
#endif
#if SFPU_OP_TRIG_FAMILY_INCLUDE
#include "api/compute/eltwise_unary/trigonometry.h"
#endif
#if SFPU_OP_ROUND_FAMILY_INCLUDE
#include "api/compute/eltwise_unary/rounding.h"
#endif
#if SFPU_OP_BINOP_WITH_SCALAR_INCLUDE
#include "api/compute/eltwise_unary/binop_with_scalar.h"
#endif
#if SFPU_OP_SOFTPLUS_INCLUDE
#include "api/compute/eltwise_unary/softplus.h"
#endif
#if SFPU_OP_FILL_INCLUDE
#include "api/compute/eltwise_unary/fill.h"
#endif
#if SFPU_OP_LOG1P_INCLUDE
#include "api/compute/eltwise_unary/log1p.h"
#endif
#if SFPU_OP_ACTIVATIONS_INCLUDE
#include "api/compute/eltwise_unary/activations.h"
#endif
#if SFPU_OP_WHERE_INCLUDE
#include "api/compute/eltwise_unary/where.h"
#endif
#if SFPU_OP_ISINF_ISNAN_INCLUDE
#error "SFPU_OP_ISINF_ISNAN_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_LOGICAL_NOT_INCLUDE
#error "SFPU_OP_LOGICAL_NOT_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_CBRT_INCLUDE
#error "SFPU_OP_CBRT_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_I0_INCLUDE
#error "SFPU_OP_I0_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_I1_INCLUDE
#error "SFPU_OP_I1_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_ERFINV_INCLUDE
#error "SFPU_OP_ERFINV_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_RSUB_INCLUDE
#error "SFPU_OP_RSUB_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_IDENTITY_INCLUDE
#error "SFPU_OP_IDENTITY_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_TYPECAST_INCLUDE
#error "SFPU_OP_TYPECAST_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_BITWISE_XOR_INCLUDE
#error "SFPU_OP_BITWISE_XOR_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_BITWISE_NOT_INCLUDE
#error "SFPU_OP_BITWISE_NOT_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_RIGHT_SHIFT_INCLUDE
#error "SFPU_OP_RIGHT_SHIFT_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_BITWISE_AND_INCLUDE
#error "SFPU_OP_BITWISE_AND_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_BITWISE_OR_INCLUDE
#error "SFPU_OP_BITWISE_OR_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_LEFT_SHIFT_INCLUDE
#error "SFPU_OP_LEFT_SHIFT_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_REMAINDER_INCLUDE
#error "SFPU_OP_REMAINDER_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_FMOD_INCLUDE
#error "SFPU_OP_FMOD_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_XIELU_INCLUDE
#error "SFPU_OP_XIELU_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_LOGSIGMOID_INCLUDE
#error "SFPU_OP_LOGSIGMOID_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_SELU_INCLUDE
#error "SFPU_OP_SELU_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_PRELU_INCLUDE
#error "SFPU_OP_PRELU_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_DROPOUT_INCLUDE
#error "SFPU_OP_DROPOUT_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_UNARY_COMP_INCLUDE
#error "SFPU_OP_UNARY_COMP_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_THRESHOLD_INCLUDE
#error "SFPU_OP_THRESHOLD_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_CLAMP_INCLUDE
#error "SFPU_OP_CLAMP_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_HARDTANH_INCLUDE
#error "SFPU_OP_HARDTANH_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_RPOW_INCLUDE
#error "SFPU_OP_RPOW_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_HARDMISH_INCLUDE
#error "SFPU_OP_HARDMISH_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_LGAMMA_INCLUDE
#error "SFPU_OP_LGAMMA_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_DIGAMMA_INCLUDE
#error "SFPU_OP_DIGAMMA_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_POLYGAMMA_INCLUDE
#error "SFPU_OP_POLYGAMMA_INCLUDE: the SDK's header for it is not mirrored by the emulator"
#endif
#if SFPU_OP_COMPUTE_KERNEL_API_INCLUDE
#include "api/compute/compute_kernel_api.h"
#endif
