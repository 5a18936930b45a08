#include "support/suggest.hpp"

#include <algorithm>

namespace tk {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i)
    d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j)
    d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string closest(const std::string& name, const std::vector<std::string>& candidates) {
  // One edit for short names, two for longer ones; never suggest a name that shares nothing.
  std::size_t limit = name.size() <= 3 ? 1 : 2;
  std::string best;
  std::size_t best_d = limit + 1;
  bool ambiguous = false;
  for (const std::string& c : candidates) {
    std::size_t dist = edit_distance(name, c);
    if (dist == best_d)
      ambiguous = true;
    if (dist < best_d && dist < std::max(name.size(), c.size())) {
      best = c;
      best_d = dist;
      ambiguous = false;
    }
  }
  return ambiguous ? std::string() : best; // a coin toss between two names helps nobody
}

} // namespace tk
