// Emulator-only host API: errors it throws and JIT statistics. Host programs written for the SDK
// never include this; tests and tools use it.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tk::rt::emu {
// Thrown for kernel protocol errors, deadlocks, kernel compile errors and invalid host calls.
class EmulatorError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct JitStats {
  std::uint64_t compiled = 0;    // kernels compiled by the C++ compiler
  std::uint64_t disk_hits = 0;   // shared objects found in the on-disk cache
  std::uint64_t memory_hits = 0; // shared objects already loaded in this process
};
JitStats jit_stats();
// Unloads every cached kernel .so; the next launch reloads from disk. Only between launches.
void forget_loaded_kernels();
// The directory kernels are cached in: $TT_METAL_EMULATOR_CACHE_DIR, else
// $XDG_CACHE_HOME/tilekit/kernels, else ~/.cache/tilekit/kernels.
std::string kernel_cache_dir();

// L1 bytes reserved for firmware at the bottom of each core's L1; CBs start here.
constexpr std::uint32_t kL1Size = 1464 * 1024;
constexpr std::uint32_t kL1ReservedBase = 0x19000;
constexpr std::uint32_t kSemaphoreBase = 0x18000;
constexpr std::uint32_t kNumDramBanks = 12;
constexpr std::uint32_t kDramAlignment = 32;
constexpr std::uint32_t kL1Alignment = 16;
constexpr std::uint32_t kMaxRuntimeArgs = 341;
constexpr std::uint32_t kNumCircularBuffers = 32;
} // namespace tk::rt::emu
