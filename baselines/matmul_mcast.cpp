// The in0 and in1 multicasts of the 2D-multicast matmul baselines (matmul_mcast.hpp).
#include "baselines/matmul_mcast.hpp"

#include <utility>

#include <hostdevcommon/common_values.hpp>

namespace tk::baselines::detail {

using tt::tt_metal::CoreCoord;
using tt::tt_metal::CoreRange;

GridMcasts::GridMcasts(tt::tt_metal::Program& program,
                       tt::tt_metal::distributed::MeshDevice& device, std::size_t cols,
                       std::size_t rows)
    : device_(device), cols_(cols), rows_(rows) {
  const CoreRange all({0, 0}, {cols - 1, rows - 1});
  in0_sender_sem_ = tt::tt_metal::CreateSemaphore(program, all, INVALID);
  in0_receiver_sem_ = tt::tt_metal::CreateSemaphore(program, all, INVALID);
  in1_sender_sem_ = tt::tt_metal::CreateSemaphore(program, all, INVALID);
  in1_receiver_sem_ = tt::tt_metal::CreateSemaphore(program, all, INVALID);
}

void GridMcasts::push_in0(std::vector<std::uint32_t>& args, std::size_t y, bool noc_1) const {
  push(args, noc_1, {1, y}, {cols_ - 1, y}, cols_ - 1, {0, y}, in0_sender_sem_, in0_receiver_sem_);
}

void GridMcasts::push_in1(std::vector<std::uint32_t>& args, std::size_t x, bool noc_1) const {
  push(args, noc_1, {x, 1}, {x, rows_ - 1}, rows_ - 1, {x, 0}, in1_sender_sem_, in1_receiver_sem_);
}

void GridMcasts::push(std::vector<std::uint32_t>& args, bool noc_1, CoreCoord first, CoreCoord last,
                      std::size_t num_dests, CoreCoord sender, std::uint32_t sender_sem,
                      std::uint32_t receiver_sem) const {
  CoreCoord start = device_.worker_core_from_logical_core(first);
  CoreCoord end = device_.worker_core_from_logical_core(last);
  if (noc_1)
    std::swap(start, end);
  const CoreCoord s = device_.worker_core_from_logical_core(sender);
  for (std::size_t v : {start.x, start.y, end.x, end.y})
    args.push_back(static_cast<std::uint32_t>(v));
  args.insert(args.end(), {static_cast<std::uint32_t>(num_dests), static_cast<std::uint32_t>(s.x),
                           static_cast<std::uint32_t>(s.y), sender_sem, receiver_sem});
}

} // namespace tk::baselines::detail
