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

// Named compile-time args (tt_metal/hw/inc/api/compile_time_args.h): the host's
// named_compile_args reach the kernel as -DKERNEL_COMPILE_TIME_ARG_MAP={"name",value}, ...; a name
// the host did not set does not compile (a call to a function that is not constexpr).
#ifdef KERNEL_COMPILE_TIME_ARG_MAP
#include <string_view>
#include <utility>
namespace {
constexpr std::pair<std::string_view, std::uint32_t> named_args_map[] = {
    KERNEL_COMPILE_TIME_ARG_MAP};
} // namespace
std::uint32_t tk_emu_named_compile_time_arg_not_set_by_the_host(std::string_view name);
constexpr std::uint32_t get_named_ct_arg(std::string_view name) {
  for (const auto& [arg_name, arg_value] : named_args_map)
    if (name == arg_name)
      return arg_value;
  return tk_emu_named_compile_time_arg_not_set_by_the_host(name);
}
constexpr std::uint32_t get_named_compile_time_arg_val(std::string_view name) {
  return get_named_ct_arg(name);
}
#elif defined(TK_CHECK_PLACEHOLDER_NAMED_ARGS)
// ttgen check parses a kernel without the host's names: a placeholder it reads as a symbol.
#include <string_view>
constexpr std::uint32_t get_named_compile_time_arg_val(std::string_view) {
  return 1;
}
#endif
