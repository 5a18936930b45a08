// ttgen check's front end: a kernel file parsed with Clang LibTooling against TileKit's SDK-mirror
// headers (or the real SDK's, with -I) the way the SDK's JIT wraps a kernel, and its kernel_main
// summarised into the model of model.hpp.
#pragma once

#include "arch/arch.hpp"
#include "check/jit.hpp"
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
  // --fp32-dest-acc: the JIT's DST_ACCUM_MODE (ComputeConfig::fp32_dest_acc_en).
  bool fp32_dest_acc = false;
};

/// The summary of the kernel in `path` (a readable file), or nullopt with the compiler's messages
/// in `errors` when it does not compile or has no kernel_main.
std::optional<Kernel> summarize(const std::string& path, const ParseOptions& options,
                                std::string& errors);

} // namespace tk::check
