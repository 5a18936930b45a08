// The pack thread's LLK calls kernels use by name (mirrors tt-metal's
// tt_metal/hw/ckernels/wormhole_b0/metal/llk_api/llk_pack_api.h, which common_globals.h includes
// for the pack thread): the packer's ReLU.
#pragma once
#include <cstdint>

#include "tk_emulator/device_api.hpp"

// ReluType::NO_RELU (0) or ReluType::ZERO_RELU (1): pack_tile writes max(value, 0) until NO_RELU.
inline void llk_pack_relu_config(const std::uint32_t config) {
  ::tk::rt::emu::pack_relu(config);
}
