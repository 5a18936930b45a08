// The random kernel generator of the differential tester (docs/difftest.md): valid .tk kernels
// by construction, type-, shape- and range-directed, deterministic by seed.
#pragma once

#include "tools/difftest/program.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tk::difftest {

/// A random valid kernel named `k<seed>`, with the sizes and scalar values of its run. Every
/// value it computes stays finite on its inputs (uniform in [-2, 2]) and inside the domain of the
/// functions applied to it, with margin: the generator tracks an interval for each expression
/// and guards log, sqrt, rsqrt, recip and exp with abs(.) + 0.5 or a power-of-two scale.
Program generate(std::uint64_t seed);

/// What the generator makes: the four classic shapes (map, row, matmul, col), or the kinds that
/// look where sums drift (docs/difftest.md): long carried sums (`sums`), whole-tensor reductions
/// (`reductions`), row statistics of data far from zero mean (`offsets`); triangular loops
/// (`triangular`), rows of tiles carried across a loop (`rows`), grouped batch indices
/// (`grouped`, `x[h / 2, ...]`). Each kind draws from random streams of its own, so a seed's
/// classic kernel is the same whatever else is asked for.
enum class Kind { classic, sums, reductions, offsets, triangular, rows, grouped };

/// "classic", "sums", "reductions", "offsets", "triangular", "rows", "grouped", comma-separated;
/// "new" is sums, reductions and offsets, "all" all seven. Nothing for a word it does not know.
std::optional<std::vector<Kind>> parse_kinds(const std::string& text);

/// The kernel of `seed` of one of `kinds` (chosen by the seed); generate(seed) when `kinds` is
/// {classic}.
Program generate(std::uint64_t seed, const std::vector<Kind>& kinds);

/// The range of the inputs' values.
inline constexpr double kInputMin = -2.0;
inline constexpr double kInputMax = 2.0;

} // namespace tk::difftest
