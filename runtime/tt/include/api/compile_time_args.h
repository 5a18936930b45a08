// Compile-time kernel args (mirrors tt_metal/hw/inc/api/compile_time_args.h): built from
// -DKERNEL_COMPILE_TIME_ARGS=a,b,c; an index out of range fails a static_assert.
#pragma once
#include <array>
#include <cstdint>

namespace tk_emu_detail {
template <typename... T>
constexpr std::array<std::uint32_t, sizeof...(T)> make_compile_time_args(T... values) {
  return {static_cast<std::uint32_t>(values)...};
}
} // namespace tk_emu_detail

#ifndef KERNEL_COMPILE_TIME_ARGS
#define KERNEL_COMPILE_TIME_ARGS
#endif
constexpr auto kernel_compile_time_args =
    tk_emu_detail::make_compile_time_args(KERNEL_COMPILE_TIME_ARGS);

template <std::uint32_t Idx>
constexpr std::uint32_t get_ct_arg() {
  static_assert(Idx < kernel_compile_time_args.size(), "Index out of range");
  return kernel_compile_time_args[Idx];
}
#define get_compile_time_arg_val(arg_idx) get_ct_arg<arg_idx>()
