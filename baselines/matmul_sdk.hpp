// The host programs of the SDK's four matmul programming examples (matmul_sdk.cpp), for
// run_matmul: each adds its CBs, kernels (baselines/kernels/), semaphores and runtime args to a
// program, on the real TT-Metalium host API.
#pragma once

#include "baselines/matmul.hpp"

#include <memory>

#include <tt-metalium/distributed.hpp>
#include <tt-metalium/host_api.hpp>

namespace tk::baselines {

/// C = A B: interleaved bf16 DRAM buffers of Mt x Kt, Kt x Nt and Mt x Nt tiles, on `grid`.
struct SdkProblem {
  std::uint32_t Mt, Kt, Nt;
  std::shared_ptr<tt::tt_metal::distributed::MeshBuffer> a, b, c;
  tt::tt_metal::MathFidelity fidelity;
  bool fp32_dest_acc_en;
  tt::tt_metal::CoreCoord grid;
};

/// matmul_single_core: core (0,0) computes every output tile.
void single_core_program(tt::tt_metal::Program& program, const SdkProblem& p);
/// matmul_multi_core: the output tiles split over the grid by split_work_to_cores.
void multi_core_program(tt::tt_metal::Program& program, const SdkProblem& p);
/// matmul_multicore_reuse: one output block of `b` per core, operands read from DRAM by each.
void reuse_program(tt::tt_metal::Program& program, const SdkProblem& p, const ReuseBlocking& b);
/// matmul_multicore_reuse_mcast: one output block of `b` per core, operands multicast along the
/// grid's rows and columns.
void reuse_mcast_program(tt::tt_metal::Program& program,
                         tt::tt_metal::distributed::MeshDevice& device, const SdkProblem& p,
                         const ReuseBlocking& b);

} // namespace tk::baselines
