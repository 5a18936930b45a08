// ttgen check's front end: a kernel file parsed with Clang LibTooling against TileKit's SDK-mirror
// headers (or the real SDK's, with -I) the way the SDK's JIT wraps a kernel, and its kernel_main
// summarised into the model of model.hpp.
#pragma once

#include "arch/arch.hpp"
#include "check/model.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tk::check {

struct ParseOptions {
  std::vector<std::string> include_dirs; // searched before the SDK-mirror headers
  std::vector<std::string> defines;      // NAME or NAME=VALUE
  std::string sdk_include_dir;           // TileKit's SDK-mirror headers
  // A tt-metal source tree (--sdk): its headers instead of the mirror, with the JIT's include
  // list and device defines (sdk_jit_includes, sdk_jit_defines).
  std::string sdk_root;
  std::string clang_resource_dir;
  // The architecture whose build is checked (--arch): its firmware define and DRAM bank count.
  const arch::ArchSpec* arch = &arch::default_arch();
  // --compile-args: the values the host passes as the kernel's compile-time args
  // (DataMovementConfig/ComputeConfig::compile_args), which the JIT defines as
  // KERNEL_COMPILE_TIME_ARGS (tt_metal/jit_build/build.cpp). Given, what depends on them is
  // evaluated; absent, placeholders stand for them and such expressions are symbols.
  std::optional<std::vector<std::uint32_t>> compile_args;
};

/// The translation unit the SDK's JIT builds around a kernel: the CB descriptor arrays of its
/// generated chlkc_descriptors.h, for compute the `using namespace ckernel` of chlkc_list.h, then
/// `#include "kernel_include"`.
std::string jit_translation_unit(const std::string& kernel_include, bool compute);
/// The macros the SDK's kernel build defines (NAME or NAME=VALUE), for a compute kernel or a
/// data-movement one, on architecture `a`.
/// `compile_args`: the kernel's compile-time args, else placeholders.
std::vector<std::string>
jit_defines(bool compute, const arch::ArchSpec& a = arch::default_arch(),
            const std::optional<std::vector<std::uint32_t>>& compile_args = std::nullopt);

/// The include directories the SDK's JIT gives a Tensix kernel's build, under tt-metal tree
/// `root`, on Wormhole: tt_metal/jit_build/build.cpp's common list, then
/// tt_metal/llrt/hal/tt-1xx/wormhole/wh_hal.cpp's (llk_api for compute only).
std::vector<std::string> sdk_jit_includes(const std::string& root, bool compute);
/// The device defines the SDK's JIT adds for the emulated n150
/// (tt_metal/jit_build/build_env_manager.cpp initialize_device_kernel_defines, build.cpp).
/// A compute kernel is checked as the math thread's build (TRISC1), a data-movement one as
/// NCRISC's (tt_metal/llrt/hal/tt-1xx/hal_1xx_common.cpp).
std::vector<std::string> sdk_jit_defines(bool compute,
                                         const arch::ArchSpec& a = arch::default_arch());

/// The summary of the kernel in `path` (a readable file), or nullopt with the compiler's messages
/// in `errors` when it does not compile or has no kernel_main.
std::optional<Kernel> summarize(const std::string& path, const ParseOptions& options,
                                std::string& errors);

} // namespace tk::check
