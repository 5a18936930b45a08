#include "check/model.hpp"

#include <algorithm>
#include <set>

namespace tk::check {

Poly Poly::constant(std::int64_t c) {
  Poly p;
  if (c != 0)
    p.terms_[{}] = c;
  return p;
}

Poly Poly::symbol(std::string name) {
  Poly p;
  p.terms_[{std::move(name)}] = 1;
  return p;
}

bool Poly::is_constant() const {
  return terms_.empty() || (terms_.size() == 1 && terms_.begin()->first.empty());
}

std::int64_t Poly::constant_value() const {
  auto it = terms_.find({});
  return it == terms_.end() ? 0 : it->second;
}

std::optional<bool> Poly::positive() const {
  if (terms_.empty())
    return std::nullopt;
  const bool pos = terms_.begin()->second > 0;
  for (const auto& [m, c] : terms_)
    if ((c > 0) != pos)
      return std::nullopt;
  return pos;
}

Poly Poly::operator+(const Poly& o) const {
  Poly r = *this;
  for (const auto& [m, c] : o.terms_)
    if ((r.terms_[m] += c) == 0)
      r.terms_.erase(m);
  return r;
}

Poly Poly::operator-(const Poly& o) const {
  return *this + o * constant(-1);
}

Poly Poly::operator*(const Poly& o) const {
  Poly r;
  for (const auto& [ma, ca] : terms_)
    for (const auto& [mb, cb] : o.terms_) {
      std::vector<std::string> m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      if ((r.terms_[m] += ca * cb) == 0)
        r.terms_.erase(m);
    }
  return r;
}

std::string Poly::str() const {
  if (terms_.empty())
    return "0";
  std::string out;
  // Highest degree first, the constant last: "Kt * count + 1".
  std::vector<std::pair<std::vector<std::string>, std::int64_t>> order(terms_.begin(),
                                                                       terms_.end());
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [m, c] : order) {
    const std::int64_t mag = c < 0 ? -c : c;
    out += out.empty() ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ");
    std::string mono;
    for (const std::string& s : m)
      mono += (mono.empty() ? "" : " * ") + s;
    if (mono.empty())
      out += std::to_string(mag);
    else
      out += (mag == 1 ? "" : std::to_string(mag) + " * ") + mono;
  }
  return out;
}

std::vector<std::string> Poly::symbols() const {
  std::set<std::string> s;
  for (const auto& [m, c] : terms_)
    s.insert(m.begin(), m.end());
  return {s.begin(), s.end()};
}

const char* to_string(Role r) {
  switch (r) {
  case Role::reader:
    return "reader";
  case Role::compute:
    return "compute";
  case Role::writer:
    return "writer";
  }
  return "?";
}

} // namespace tk::check
