// DEVICE_PRINT of each kind of value the SDK's examples print, reached through the dataflow API
// the firmware build includes (as the SDK's, through internal/debug/sanitize.h), and the core's
// logical coordinates.
#include <cstdint>

void kernel_main() {
  const uint32_t n = get_arg_val<uint32_t>(0);
  const int32_t neg = -7;
  const float third = 1.0f / 3.0f;
  DEVICE_PRINT("n={} neg={} third={} bf16={} {{literal}} {:x}\n", n, neg, third, bf16_t(0x3FC0),
               255u);
  DEVICE_PRINT("core {},{} (relative {},{})\n", get_absolute_logical_x(), get_absolute_logical_y(),
               get_relative_logical_x(), get_relative_logical_y());
  DEVICE_PRINT_DATA0("on NoC 0\n");
  DEVICE_PRINT_DATA1("on NoC 1\n");
}
