// The multicasts both 2D-multicast matmul baselines share (matmul_sdk.cpp's reuse_mcast and
// matmul_ttnn.cpp's ttnn_mcast): in0 read by the left column and multicast along each row, in1
// read by the top row and multicast down each column, each with a sender's and a receivers'
// semaphore.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <tt-metalium/distributed.hpp>
#include <tt-metalium/host_api.hpp>

namespace tk::baselines::detail {

/// The in0 and in1 multicasts of a cols x rows grid whose core (x, y) computes output block
/// (y, x); the four semaphores are created on every core of the grid (in0's sender and
/// receivers', then in1's), INVALID.
class GridMcasts {
public:
  GridMcasts(tt::tt_metal::Program& program, tt::tt_metal::distributed::MeshDevice& device,
             std::size_t cols, std::size_t rows);

  /// Appends in0's nine runtime args for a core of row y (the readers of both baselines read
  /// them in this order): the receivers' rectangle, columns 1 to cols - 1, in NoC coordinates
  /// from the corner the kernel's NoC starts at (NOC 1, `noc_1`, runs from the largest), the
  /// receivers' count, the sender's (column 0) NoC coordinates, the sender's and the receivers'
  /// semaphores.
  void push_in0(std::vector<std::uint32_t>& args, std::size_t y, bool noc_1) const;
  /// The same for in1 and a core of column x: rows 1 to rows - 1, sent from row 0.
  void push_in1(std::vector<std::uint32_t>& args, std::size_t x, bool noc_1) const;

private:
  void push(std::vector<std::uint32_t>& args, bool noc_1, tt::tt_metal::CoreCoord first,
            tt::tt_metal::CoreCoord last, std::size_t num_dests, tt::tt_metal::CoreCoord sender,
            std::uint32_t sender_sem, std::uint32_t receiver_sem) const;

  tt::tt_metal::distributed::MeshDevice& device_;
  std::size_t cols_, rows_;
  std::uint32_t in0_sender_sem_, in0_receiver_sem_, in1_sender_sem_, in1_receiver_sem_;
};

} // namespace tk::baselines::detail
