#include "ops/ops.hpp"

#include <array>

namespace tk::ops {

namespace {

constexpr int words(std::string_view s) {
  int n = s.empty() ? 0 : 1;
  for (char c : s)
    n += c == ' ';
  return n;
}

constexpr OpInfo kInfo[] = {
#define TK_X(op, surface, args, kind, call, init, header, fn, body)                                \
  {#op, Surface::surface, args, words(args), Kind::kind, header, fn, body},
    TK_TILE_OPS(TK_X)
#undef TK_X
};

constexpr std::array kAll = {
#define TK_X(op, surface, args, kind, call, init, header, fn, body) Op::op,
    TK_TILE_OPS(TK_X)
#undef TK_X
};

} // namespace

const OpInfo& info(Op op) {
  return kInfo[static_cast<std::size_t>(op)];
}
std::string_view to_string(Op op) {
  return info(op).name;
}

std::optional<Op> op_from_string(std::string_view s) {
  for (Op op : kAll)
    if (info(op).name == s)
      return op;
  return std::nullopt;
}

std::span<const Op> all_ops() {
  return kAll;
}

} // namespace tk::ops
