// generate() and the choice of kind (generate.hpp): the classic shapes are built by gen.hpp's
// Gen, the kinds that look where sums drift by generate_sums.cpp, rows of tiles and grouped
// indices by generate_rows.cpp.
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
    if (word == "triangular" || word == "all")
      kinds.push_back(Kind::triangular);
    if (word == "rows" || word == "all")
      kinds.push_back(Kind::rows);
    if (word == "grouped" || word == "all")
      kinds.push_back(Kind::grouped);
    if (word != "classic" && word != "sums" && word != "reductions" && word != "offsets" &&
        word != "triangular" && word != "rows" && word != "grouped" && word != "new" &&
        word != "all")
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
  if (kind == Kind::triangular) // a stream of its own: the other kinds' kernels do not move
    return gen::Gen(seed, 0x747269616e670000ull).run_kind(seed, kind); // "triang"
  if (kind == Kind::rows)
    return gen::Gen(seed, 0x726f777300000000ull).run_kind(seed, kind); // "rows"
  if (kind == Kind::grouped)
    return gen::Gen(seed, 0x67726f7570000000ull).run_kind(seed, kind); // "group"
  return gen::Gen(seed, 0x73756d7300000000ull).run_kind(seed, kind);   // "sums"
}

} // namespace tk::difftest
