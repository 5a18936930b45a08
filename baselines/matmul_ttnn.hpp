// The TTNN-configuration baseline's host program (matmul_ttnn.cpp), for run_matmul.
#pragma once

#include "baselines/matmul.hpp"

#include <memory>

#include <tt-metalium/distributed.hpp>
#include <tt-metalium/host_api.hpp>

namespace tk::baselines {

/// Adds ttnn_mcast's CBs, kernels, semaphores and runtime args for C = A B (interleaved bf16 DRAM
/// buffers of Mt x Kt, Kt x Nt and Mt x Nt tiles) to `program`.
void ttnn_mcast_program(tt::tt_metal::Program& program,
                        tt::tt_metal::distributed::MeshDevice& device, std::uint32_t Mt,
                        std::uint32_t Kt, std::uint32_t Nt,
                        const std::shared_ptr<tt::tt_metal::distributed::MeshBuffer>& a,
                        const std::shared_ptr<tt::tt_metal::distributed::MeshBuffer>& b,
                        const std::shared_ptr<tt::tt_metal::distributed::MeshBuffer>& c,
                        const MatmulOptions& options, const TtnnConfig& config);

} // namespace tk::baselines
