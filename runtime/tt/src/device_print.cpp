// DEVICE_PRINT's output (include/api/debug/device_print.h): like the SDK's print server, shown only
// when TT_METAL_DPRINT_CORES is set, on the host's stdout, flushed per message so that it
// interleaves with the host's own output in program order.
#include <cstdio>
#include <cstdlib>

#include "tk_emulator/device_api.hpp"

namespace tk::rt::emu {

void device_print(const char* text, std::size_t size) {
  if (std::getenv("TT_METAL_DPRINT_CORES") == nullptr)
    return;
  std::fwrite(text, 1, size, stdout);
  std::fflush(stdout);
}

} // namespace tk::rt::emu
