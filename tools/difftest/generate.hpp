// The random kernel generator of the differential tester (docs/difftest.md): valid .tk kernels
// by construction, type-, shape- and range-directed, deterministic by seed.
#pragma once

#include "tools/difftest/program.hpp"

#include <cstdint>

namespace tk::difftest {

/// A random valid kernel named `k<seed>`, with the sizes and scalar values of its run. Every
/// value it computes stays finite on its inputs (uniform in [-2, 2]) and inside the domain of the
/// functions applied to it, with margin: the generator tracks an interval for each expression
/// and guards log, sqrt, rsqrt, recip and exp with abs(.) + 0.5 or a power-of-two scale.
Program generate(std::uint64_t seed);

/// The range of the inputs' values.
inline constexpr double kInputMin = -2.0;
inline constexpr double kInputMax = 2.0;

} // namespace tk::difftest
