// The NoC's links as queues: dimension-order routes on each NoC's torus (noc_links.hpp).
#include "noc_links.hpp"

#include <algorithm>
#include <cmath>

namespace tk::rt::emu::timing {

void NocLinks::reset(const arch::ArchSpec& a) {
  arch_ = &a;
  free_.assign(std::size_t{2} * a.noc_size_x * a.noc_size_y * 2, 0.0);
}

Router NocLinks::worker(std::uint32_t x, std::uint32_t y) const {
  return {arch_->worker_noc0_x.at(x), arch_->worker_noc0_y.at(y)};
}
Router NocLinks::bank(int noc, std::uint32_t bank) const {
  const arch::NocCoord c = arch_->dram_bank_router.at(static_cast<std::size_t>(noc & 1)).at(bank);
  return {c.x, c.y};
}

std::size_t NocLinks::link(int noc, std::uint32_t x, std::uint32_t y, int axis) const {
  return ((static_cast<std::size_t>(noc) * arch_->noc_size_y + y) * arch_->noc_size_x + x) * 2 +
         static_cast<std::size_t>(axis);
}

// NoC 0: along x (rightwards, increasing x) to the destination's column, then along y
// (downwards, increasing y); NoC 1: along y (upwards, decreasing y) to the destination's row,
// then along x (leftwards, decreasing x). Both wrap at the torus's edges.
template <class F>
void NocLinks::walk(int noc, Router from, Router to, F&& each) const {
  const std::uint32_t nx = arch_->noc_size_x, ny = arch_->noc_size_y;
  std::uint32_t x = from.x, y = from.y;
  if (noc == 0) {
    for (; x != to.x; x = (x + 1) % nx)
      each(link(0, x, y, 0));
    for (; y != to.y; y = (y + 1) % ny)
      each(link(0, x, y, 1));
  } else {
    for (; y != to.y; y = (y + ny - 1) % ny)
      each(link(1, x, y, 1));
    for (; x != to.x; x = (x + nx - 1) % nx)
      each(link(1, x, y, 0));
  }
}

double NocLinks::unicast(int noc, Router from, Router to, double t, double bytes) {
  // A packet is one header flit and up to noc_max_burst_bytes of data flits (ISA NoC/README.md).
  const double packets = std::max(1.0, std::ceil(bytes / arch_->noc_max_burst_bytes));
  const double cycles =
      (bytes + packets * arch_->noc_word_bytes) / arch_->noc_link_bytes_per_cycle.value;
  double done = t;
  walk(noc & 1, from, to, [&](std::size_t l) {
    free_[l] = std::max(free_[l], t) + cycles;
    done = std::max(done, free_[l]);
  });
  return done;
}

} // namespace tk::rt::emu::timing
