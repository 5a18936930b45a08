// The architecture table: every fact TileKit knows about a Tenstorrent chip, once, each with the
// tt-metal file it comes from. The TT stages (lowering/tt), ttgen check (check/), the static
// estimate (report/), the hand-written baselines and the emulator (runtime/tt) read these and
// nothing else; nothing outside arch/ spells a chip figure. Header-only and free of every other
// TileKit library, so any of them can include it: the ground floor, as Halide's Target.
// docs/arch.md lists the facts with their sources.
#pragma once

#include "arch/blackhole.hpp"
#include "arch/spec.hpp"
#include "arch/wormhole_b0.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tk::arch {

/// Every architecture, the default first.
inline std::span<const ArchSpec* const> all() {
  static constexpr const ArchSpec* kAll[] = {&kWormholeB0, &kBlackhole};
  return kAll;
}

static_assert(kWormholeB0.num_circular_buffers <= kMaxCircularBuffers &&
              kBlackhole.num_circular_buffers <= kMaxCircularBuffers);
static_assert(kWormholeB0.dram_banks <= kMaxDramBanks && kBlackhole.dram_banks <= kMaxDramBanks);

/// The architecture TileKit targets when none is named.
inline const ArchSpec& default_arch() {
  return *all().front();
}

/// The architecture named `name` (ArchSpec::name); null when there is none.
inline const ArchSpec* find(std::string_view name) {
  const auto archs = all();
  const auto it =
      std::find_if(archs.begin(), archs.end(), [&](const ArchSpec* a) { return a->name == name; });
  return it == archs.end() ? nullptr : *it;
}

/// The names of all(), comma-separated, for diagnostics: "wormhole_b0, blackhole".
inline std::string names() {
  std::string out;
  for (const ArchSpec* a : all())
    out += (out.empty() ? "" : ", ") + std::string(a->name);
  return out;
}

/// The grid sides `a` allows, as diagnostics say it: "each side<verb> 1 to 8", or "x<verb> 1 to 13
/// and y 1 to 10" when the sides differ.
inline std::string grid_sides(const ArchSpec& a, std::string_view verb = "") {
  if (a.grid_x == a.grid_y)
    return "each side" + std::string(verb) + " 1 to " + std::to_string(a.grid_x);
  return "x" + std::string(verb) + " 1 to " + std::to_string(a.grid_x) + " and y 1 to " +
         std::to_string(a.grid_y);
}
/// "8x8": the grid of `a`.
inline std::string grid_text(const ArchSpec& a) {
  return std::to_string(a.grid_x) + "x" + std::to_string(a.grid_y);
}

/// "wormhole_b0 (n150, 8x8)": the name, the board and its grid, as reports print it.
inline std::string describe(const ArchSpec& a) {
  return std::string(a.name) + " (" + std::string(a.product) + ", " + grid_text(a) + ")";
}

/// An address as diagnostics print it: "0x19520".
inline std::string hex(std::uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[v % 16]);
    v /= 16;
  } while (v != 0);
  return "0x" + out;
}

} // namespace tk::arch
