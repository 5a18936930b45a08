// End-to-end case of the whole-tensor reduction example: tensor_max (a reduction variable across
// the whole parallel space, finished after it; docs/language.md, "Whole-tensor reductions").
#include "tests/e2e/cases.hpp"

#include "tensor_max.hpp"

#include <algorithm>
#include <cmath>

namespace tk::e2e {

Outcome run_tensor_max(Backend b, const Shape& s) {
  // [-4, 4] with the maximum somewhere inside: every tile position holds a different partial
  // maximum, so a tile left out (or read twice) of the combine changes the result.
  Rng rng(seed_for("tensor_max", s));
  auto x = random_bf16(s.m, s.n, -4, 4, rng);
  // One element above every other, placed by the seed: the answer is not a tie.
  const std::int64_t at_r = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(s.m));
  const std::int64_t at_c = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(s.n));
  x.data[static_cast<std::size_t>(at_r * s.n + at_c)] = bf16(5.5f);
  Matrix<bf16> y(1, 32);
  auto cpu = [&] { gen::tensor_max::run_cpu(x.cview(), y.view()); };
#if TK_E2E_TT_tensor_max
  auto tt = [&] { gen::tensor_max::run_tt(device(), x.cview(), y.view()); };
#else
  NoTt tt;
#endif
  const double seconds = launch(b, cpu, tt);
  Reference ref{1, 32, std::vector<double>(32, 0.0), {}};
  double m = -INFINITY;
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j)
      m = std::max(m, x.at(i, j));
  ref.value[0] = m; // rowmax(colmax(m)) keeps column 0 of row 0; the rest of row 0 is 0
  set_bf16_bound(ref);
  Outcome out = verify("tensor_max", {{{"x", to_interp(x)}}, {}, {}}, "y", y, ref);
  out.seconds = seconds;
  return out;
}

} // namespace tk::e2e
