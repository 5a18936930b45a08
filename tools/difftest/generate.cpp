// The random kernel generator (generate.hpp). A kernel is one of four shapes that between them
// use every statement and expression form of docs/language.md — an element-wise map, a row-wise
// reduction then map (softmax-like), an accumulating matmul, a column-wise reduction — filled with
// random expression trees over every op of the op table, scalars and scalar expressions (of
// parameters, literals and sizes: `(alpha * 0.5)`, `(1.0 / M)`), `/` by and of scalars,
// transposes, masks (comparisons, tril and triu of the tile's indices) and where(), constants,
// broadcasts and reductions, on named and literal dimensions, vectors in and out, with random
// @options.
//
// Each expression carries an interval that holds all its values. The element-wise functions are
// not special-cased: the interval of f over [lo, hi] is sampled through the reference
// interpreter's own definition (interp::unary); where f is not finite on it (log, sqrt, rsqrt,
// recip near or below 0) the operand becomes abs(E) + 0.5, and where it grows too large (exp,
// square) the operand is scaled by a power of two first. So a new unary op in the op table is
// generated, guarded and tested without a change here (log1p, below -1 undefined, gets
// abs(E) + 0.5 like log). elu(E, alpha), the one builtin with a scalar parameter, is generated
// here with a positive scalar leaf for alpha.
#include "tools/difftest/generate.hpp"

#include "tools/difftest/gen.hpp"

namespace tk::difftest {

Program generate(std::uint64_t seed) {
  return gen::Gen(seed).run(seed);
}

std::optional<std::vector<Kind>> parse_kinds(const std::string& text) {
  std::vector<Kind> kinds;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string word = text.substr(at, comma - at);
    if (word == "classic" || word == "all")
      kinds.push_back(Kind::classic);
    if (word == "sums" || word == "new" || word == "all")
      kinds.push_back(Kind::sums);
    if (word == "reductions" || word == "new" || word == "all")
      kinds.push_back(Kind::reductions);
    if (word == "offsets" || word == "new" || word == "all")
      kinds.push_back(Kind::offsets);
    if (word != "classic" && word != "sums" && word != "reductions" && word != "offsets" &&
        word != "new" && word != "all")
      return std::nullopt;
    at = comma + 1;
  }
  std::sort(kinds.begin(), kinds.end());
  kinds.erase(std::unique(kinds.begin(), kinds.end()), kinds.end());
  return kinds;
}

Program generate(std::uint64_t seed, const std::vector<Kind>& kinds) {
  if (kinds.empty() || (kinds.size() == 1 && kinds[0] == Kind::classic))
    return generate(seed);
  std::mt19937_64 pick(seed ^ 0x6b696e6473000000ull); // "kinds"
  const Kind kind = kinds[pick() % kinds.size()];
  if (kind == Kind::classic)
    return generate(seed);
  return gen::Gen(seed, 0x73756d7300000000ull).run_kind(seed, kind); // "sums"
}

} // namespace tk::difftest
