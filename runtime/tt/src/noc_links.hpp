// The NoC's links as queues of the timing model (docs/timing.md, "NoC links"). Each NoC is a 2D
// torus of routers (the architecture's noc_size_x by noc_size_y, NoC 0 coordinates); a unicast
// packet travels on NoC 0 rightwards, turns at most once, then downwards, and on NoC 1 upwards,
// then leftwards, wrapping at the edges (tt-isa-documentation WormholeB0/NoC/RoutingPaths.md).
// Every link between two neighbouring routers, per NoC and direction, serves one transfer at a time
// at `noc_link_bytes_per_cycle`, so transfers whose routes share a link wait for each other and
// transfers on disjoint routes do not.
#pragma once

#include <cstdint>
#include <vector>

#include "arch/spec.hpp"

namespace tk::rt::emu::timing {

/// A router, in NoC 0 coordinates (the same tile on both NoCs).
struct Router {
  std::uint32_t x = 0, y = 0;
};

class NocLinks {
public:
  /// Every link free at time 0.
  void reset(const arch::ArchSpec& a);
  /// The router of logical worker (x, y) and of DRAM bank `bank`'s endpoint on `noc`.
  Router worker(std::uint32_t x, std::uint32_t y) const;
  Router bank(int noc, std::uint32_t bank) const;
  /// A transfer of `bytes` from `from` to `to` on `noc`, issued at `t`: occupies every link of its
  /// route from the later of `t` and the time the link is free, for the bytes and the packets'
  /// header flits at the link's rate. Returns the time the last link is done (`t` when the two
  /// routers are the same).
  double unicast(int noc, Router from, Router to, double t, double bytes);

private:
  // The link leaving router (x, y) along `axis` (0: x, 1: y) on `noc`.
  std::size_t link(int noc, std::uint32_t x, std::uint32_t y, int axis) const;
  template <class F>
  void walk(int noc, Router from, Router to, F&& each) const;

  const arch::ArchSpec* arch_ = nullptr;
  std::vector<double> free_;
};

} // namespace tk::rt::emu::timing
