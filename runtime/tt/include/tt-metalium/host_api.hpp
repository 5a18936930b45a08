// Program construction API (mirrors tt_metal/api/tt-metalium/host_api.hpp, TT-Mesh era).
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include <tt-metalium/base_types.hpp>
#include <tt-metalium/buffer.hpp>
#include <tt-metalium/buffer_types.hpp>
#include <tt-metalium/circular_buffer_config.hpp>
#include <tt-metalium/core_coord.hpp>
#include <tt-metalium/device.hpp>
#include <tt-metalium/kernel_types.hpp>
#include <tt-metalium/program.hpp>
#include <tt-metalium/runtime_args_data.hpp>
#include <tt-metalium/tt_backend_api_types.hpp>
#include <tt_stl/span.hpp> // ttsl::Span; tt::stl is a [[deprecated]] alias of ttsl

namespace tt::tt_metal {
using KernelHandle = std::uint32_t;
using CBHandle = std::uintptr_t;

Program CreateProgram();

KernelHandle CreateKernel(Program& program, const std::string& file_name,
                          const std::variant<CoreCoord, CoreRange, CoreRangeSet>& core_spec,
                          const std::variant<DataMovementConfig, ComputeConfig>& config);

CBHandle CreateCircularBuffer(Program& program,
                              const std::variant<CoreCoord, CoreRange, CoreRangeSet>& core_spec,
                              const CircularBufferConfig& config);

std::uint32_t CreateSemaphore(Program& program,
                              const std::variant<CoreRange, CoreRangeSet>& core_spec,
                              std::uint32_t initial_value);

// At most 341 unique + common runtime args per core and kernel; more is an error.
void SetRuntimeArgs(const Program& program, KernelHandle kernel,
                    const std::variant<CoreCoord, CoreRange, CoreRangeSet>& core_spec,
                    ttsl::Span<const std::uint32_t> runtime_args);
void SetRuntimeArgs(const Program& program, KernelHandle kernel,
                    const std::variant<CoreCoord, CoreRange, CoreRangeSet>& core_spec,
                    std::initializer_list<std::uint32_t> runtime_args);
void SetRuntimeArgs(const Program& program, KernelHandle kernel,
                    const std::vector<CoreCoord>& core_spec,
                    const std::vector<std::vector<std::uint32_t>>& runtime_args);
void SetCommonRuntimeArgs(const Program& program, KernelHandle kernel,
                          ttsl::Span<const std::uint32_t> runtime_args);

RuntimeArgsData& GetRuntimeArgs(const Program& program, KernelHandle kernel,
                                const CoreCoord& logical_core);
RuntimeArgsData& GetCommonRuntimeArgs(const Program& program, KernelHandle kernel);
} // namespace tt::tt_metal
