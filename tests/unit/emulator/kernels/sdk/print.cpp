// DEVICE_PRINT of each kind of value the SDK's examples print.
#include <cstdint>

#include "api/debug/device_print.h"

void kernel_main() {
  const uint32_t n = get_arg_val<uint32_t>(0);
  const int32_t neg = -7;
  const float third = 1.0f / 3.0f;
  DEVICE_PRINT("n={} neg={} third={} bf16={} {{literal}} {:x}\n", n, neg, third,
               bf16_t(0x3FC0), 255u);
  DEVICE_PRINT_DATA0("on NoC 0\n");
  DEVICE_PRINT_DATA1("on NoC 1\n");
}
