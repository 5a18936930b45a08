// How the SDK's JIT builds a Tensix kernel (tt_metal/jit_build/): what `ttgen check` defines and
// includes to parse a kernel as the JIT compiles it (check/frontend.hpp).
#pragma once

#include "arch/arch.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tk::check {

/// The translation unit the SDK's JIT builds around a kernel on the mirror: for a compute kernel
/// its generated chlkc_descriptors.h (every CB bfloat16 32x32 tiles, HiFi4, DST_ACCUM_MODE
/// `fp32_dest_acc`, half-sync; tk_emulator/chlkc_descriptors.hpp, as the emulator's JIT) and the
/// `using namespace ckernel` of chlkc_list.h, for a data-movement kernel the CB arrays the
/// emulator's JIT gives it; then `#include "kernel_include"`.
/// The descriptor arrays hold architecture `a`'s CBs (ArchSpec::num_circular_buffers), as the
/// JIT's genfiles.cpp sizes them.
std::string jit_translation_unit(const std::string& kernel_include, bool compute,
                                 bool fp32_dest_acc = false,
                                 const arch::ArchSpec& a = arch::default_arch());
/// The macros the SDK's kernel build defines (NAME or NAME=VALUE), for a compute kernel or a
/// data-movement one, on architecture `a`.
/// `compile_args`: the kernel's compile-time args, else placeholders.
std::vector<std::string>
jit_defines(bool compute, const arch::ArchSpec& a = arch::default_arch(),
            const std::optional<std::vector<std::uint32_t>>& compile_args = std::nullopt);

/// The include directories the SDK's JIT gives a data-movement kernel's build, under tt-metal
/// tree `root`, for architecture `a`: tt_metal/jit_build/build.cpp's common list, then the HAL's
/// (tt_metal/llrt/hal/tt-1xx/wormhole/wh_hal.cpp, blackhole/bh_hal.cpp), whose folders
/// ArchSpec::jit_* name. (Only data-movement kernels are parsed against --sdk: a compute kernel
/// is checked on the mirror, check/frontend.cpp says why.)
std::vector<std::string> sdk_jit_includes(const std::string& root,
                                          const arch::ArchSpec& a = arch::default_arch());
/// The device defines the SDK's JIT adds for the emulated board of `a`
/// (tt_metal/jit_build/build_env_manager.cpp initialize_device_kernel_defines, build.cpp), for
/// NCRISC's build of a data-movement kernel (tt_metal/llrt/hal/tt-1xx/hal_1xx_common.cpp).
std::vector<std::string> sdk_jit_defines(const arch::ArchSpec& a = arch::default_arch());

/// The compiler arguments that make the parse target the JIT's: a 32-bit RISC-V core (the JIT
/// compiles every Tensix kernel with riscv-tt-elf-g++ -mcpu=tt-wh-tensix / tt-bh-tensix), so
/// pointers and `long` are 32 bits wide and inline assembly names RISC-V registers. The host's
/// C++ headers stay (Debian ships no RISC-V libstdc++); see docs/check.md.
std::vector<std::string> sdk_jit_target_args();

/// The JIT's generated chlkc_descriptors.h of a kernel whose CBs (architecture `a`'s count) hold
/// bfloat16 tiles, each section under the generated file's guard (UCK_CHLKC_*), which `--sdk` maps
/// into the include path at kSdkGeneratedDir.
std::string sdk_chlkc_descriptors(const arch::ArchSpec& a);
inline constexpr const char* kSdkGeneratedDir = "/tk_check_sdk_generated";

} // namespace tk::check
