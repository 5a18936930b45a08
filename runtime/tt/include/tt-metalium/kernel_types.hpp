// Kernel configurations (mirrors tt_metal/api/tt-metalium/kernel_types.hpp; field order matters for
// designated initializers).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <tt-metalium/base_types.hpp>

namespace tt::tt_metal {
enum class DataMovementProcessor { RISCV_0 = 0, RISCV_1 = 1 };
enum NOC : std::uint8_t { RISCV_0_default = 0, RISCV_1_default = 1, NOC_0 = 0, NOC_1 = 1 };
enum NOC_MODE : std::uint8_t { DM_DEDICATED_NOC = 0, DM_DYNAMIC_NOC = 1 };
enum class KernelBuildOptLevel : std::uint8_t { O1, O2, O3, O0, Os, Ofast, Oz };

struct DataMovementConfig {
  DataMovementProcessor processor = DataMovementProcessor::RISCV_0;
  NOC noc = NOC::RISCV_0_default;
  NOC_MODE noc_mode = NOC_MODE::DM_DEDICATED_NOC;
  std::vector<std::uint32_t> compile_args;
  std::map<std::string, std::string> defines;
  std::unordered_map<std::string, std::uint32_t> named_compile_args;
  KernelBuildOptLevel opt_level = KernelBuildOptLevel::O2;
};

// tt-metal's reader and writer configs take tt_metal/api/tt-metalium/kernel_types.hpp's
// detail::preferred_noc_for_dram_read / _write: NOC_0 and NOC_1 on Wormhole and by default
// (tt_metal/impl/kernels/kernel_types.cpp).
struct ReaderDataMovementConfig : public DataMovementConfig {
  ReaderDataMovementConfig(std::vector<std::uint32_t> compile_args = {},
                           std::map<std::string, std::string> defines = {},
                           std::unordered_map<std::string, std::uint32_t> named_compile_args = {},
                           KernelBuildOptLevel opt_level = KernelBuildOptLevel::O2)
      : DataMovementConfig{DataMovementProcessor::RISCV_1,
                           NOC::NOC_0,
                           NOC_MODE::DM_DEDICATED_NOC,
                           std::move(compile_args),
                           std::move(defines),
                           std::move(named_compile_args),
                           opt_level} {}
};

struct WriterDataMovementConfig : public DataMovementConfig {
  WriterDataMovementConfig(std::vector<std::uint32_t> compile_args = {},
                           std::map<std::string, std::string> defines = {},
                           std::unordered_map<std::string, std::uint32_t> named_compile_args = {},
                           KernelBuildOptLevel opt_level = KernelBuildOptLevel::O2)
      : DataMovementConfig{DataMovementProcessor::RISCV_0,
                           NOC::NOC_1,
                           NOC_MODE::DM_DEDICATED_NOC,
                           std::move(compile_args),
                           std::move(defines),
                           std::move(named_compile_args),
                           opt_level} {}
};

struct ComputeConfig {
  MathFidelity math_fidelity = MathFidelity::HiFi4;
  bool fp32_dest_acc_en = false;
  bool dst_full_sync_en = false;
  std::vector<UnpackToDestMode> unpack_to_dest_mode;
  bool bfp8_pack_precise = false;
  bool math_approx_mode = false;
  std::vector<std::uint32_t> compile_args;
  std::map<std::string, std::string> defines;
  std::unordered_map<std::string, std::uint32_t> named_compile_args;
  KernelBuildOptLevel opt_level = KernelBuildOptLevel::O3;
};
} // namespace tt::tt_metal
