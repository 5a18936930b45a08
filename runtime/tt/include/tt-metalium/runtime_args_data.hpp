// A view of one core's runtime args (mirrors RuntimeArgsData in
// tt_metal/api/tt-metalium/runtime_args_data.hpp).
#pragma once
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <stdexcept>
#include <string>
#include <tt_stl/assert.hpp>
#include <utility>

namespace tt::tt_metal {
struct RuntimeArgsData {
  std::uint32_t* rt_args_data = nullptr;
  std::size_t rt_args_count = 0;

  std::uint32_t& operator[](std::size_t index) { return rt_args_data[index]; }
  const std::uint32_t& operator[](std::size_t index) const { return rt_args_data[index]; }
  std::uint32_t& at(std::size_t index) {
    if (index >= rt_args_count) {
      throw std::out_of_range("runtime arg index " + std::to_string(index) +
                              " >= " + std::to_string(rt_args_count));
    }
    return rt_args_data[index];
  }
  std::uint32_t* data() noexcept { return rt_args_data; }
  std::size_t size() const noexcept { return rt_args_count; }
};
} // namespace tt::tt_metal
