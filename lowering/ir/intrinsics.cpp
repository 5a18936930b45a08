#include "lowering/ir/intrinsics.hpp"

#include "support/diagnostics.hpp"

#include <array>
#include <string>
#include <vector>

namespace tk::ir {

namespace {

constexpr std::string_view kArgKindNames[] = {"int",  "slot",   "const", "f32",     "tile",
                                              "cb",   "tensor", "src",   "dst",     "pool",
                                              "rdim", "bcast",  "binop", "dformat", "row"};

struct RawEntry {
  std::string_view name, args;
  ResultKind result;
  Effect effect;
  std::string_view header;
};

constexpr ResultKind result_kind(std::string_view r) {
  return r == "i32"    ? ResultKind::i32
         : r == "u32"  ? ResultKind::u32
         : r == "f32"  ? ResultKind::f32
         : r == "tile" ? ResultKind::tile
         : r == "row"  ? ResultKind::row
                       : ResultKind::void_;
}

constexpr RawEntry kRaw[] = {
#define TK_X(e, name, args, result, effect, header)                                                \
  {name, args, result_kind(#result), Effect::effect, header},
    TK_IR_INTRINSICS(TK_X) TK_TILE_OPS(TK_IR_OP_INTRINSICS)
#undef TK_X
};

// The signature strings are split once, on first use; a misspelt kind is a bug in the table.
struct Table {
  std::vector<std::vector<ArgKind>> args;
  std::vector<IntrinsicInfo> infos;
  std::vector<Intrinsic> all;
  Table() {
    args.reserve(std::size(kRaw));
    for (std::size_t i = 0; i < std::size(kRaw); ++i) {
      std::vector<ArgKind> kinds;
      std::string_view s = kRaw[i].args;
      while (!s.empty()) {
        std::size_t sp = s.find(' ');
        std::string_view word = s.substr(0, sp);
        bool found = false;
        for (std::size_t k = 0; k < std::size(kArgKindNames); ++k)
          if (kArgKindNames[k] == word) {
            kinds.push_back(static_cast<ArgKind>(k));
            found = true;
          }
        if (!found)
          throw InternalError("intrinsic table: unknown argument kind '" + std::string(word) +
                              "' in " + std::string(kRaw[i].name));
        s = sp == std::string_view::npos ? std::string_view{} : s.substr(sp + 1);
      }
      args.push_back(std::move(kinds));
      all.push_back(static_cast<Intrinsic>(i));
    }
    for (std::size_t i = 0; i < std::size(kRaw); ++i)
      infos.push_back({kRaw[i].name, args[i], kRaw[i].result, kRaw[i].effect, kRaw[i].header});
  }
};

const Table& table() {
  static const Table t;
  return t;
}

struct EnumEntry {
  std::string_view text;
  ArgKind kind;
};
constexpr ArgKind group_kind(std::string_view g) {
  return g == "PoolType"        ? ArgKind::pool
         : g == "ReduceDim"     ? ArgKind::rdim
         : g == "BroadcastType" ? ArgKind::bcast
         : g == "DataFormat"    ? ArgKind::dformat
                                : ArgKind::binop;
}
constexpr EnumEntry kEnums[] = {
#define TK_X(e, group, name) {#group "::" #name, group_kind(#group)},
    TK_IR_ENUM_CONSTS(TK_X)
#undef TK_X
};
constexpr std::array kAllEnums = {
#define TK_X(e, group, name) EnumConst::e,
    TK_IR_ENUM_CONSTS(TK_X)
#undef TK_X
};

} // namespace

const IntrinsicInfo& info(Intrinsic i) {
  return table().infos[static_cast<std::size_t>(i)];
}
std::string_view to_string(Intrinsic i) {
  return kRaw[static_cast<std::size_t>(i)].name;
}
std::string_view to_string(ArgKind k) {
  return kArgKindNames[static_cast<std::size_t>(k)];
}

std::optional<Intrinsic> intrinsic_from_string(std::string_view s) {
  for (std::size_t i = 0; i < std::size(kRaw); ++i)
    if (kRaw[i].name == s)
      return static_cast<Intrinsic>(i);
  return std::nullopt;
}

std::span<const Intrinsic> all_intrinsics() {
  return table().all;
}

std::string_view to_string(EnumConst e) {
  return kEnums[static_cast<std::size_t>(e)].text;
}
std::optional<EnumConst> enum_const_from_string(std::string_view s) {
  for (std::size_t i = 0; i < std::size(kEnums); ++i)
    if (kEnums[i].text == s)
      return static_cast<EnumConst>(i);
  return std::nullopt;
}
ArgKind arg_kind_of(EnumConst e) {
  return kEnums[static_cast<std::size_t>(e)].kind;
}
std::span<const EnumConst> all_enum_consts() {
  return kAllEnums;
}

Intrinsic tile_intrinsic(ops::Op op) {
  switch (op) {
#define TK_X(op, surface, args, kind, call, init, header, fn, body)                                \
  case ops::Op::op:                                                                                \
    return Intrinsic::tile_##op;
    TK_TILE_OPS(TK_X)
#undef TK_X
  }
  throw InternalError("internal error: tile_intrinsic of an op outside the op table");
}

std::optional<ops::Op> op_of(Intrinsic fn) {
  switch (fn) {
#define TK_X(op, surface, args, kind, call, init, header, fn, body)                                \
  case Intrinsic::tile_##op:                                                                       \
    return ops::Op::op;
    TK_TILE_OPS(TK_X)
#undef TK_X
  default:
    return std::nullopt;
  }
}

std::optional<Intrinsic> tt_call(ops::Op op) {
  switch (op) {
#define TK_X(op, surface, args, kind, call, init, header, fn, body)                                \
  TK_OPS_SFPU(kind, case ops::Op::op : return Intrinsic::call;)
    TK_TILE_OPS(TK_X)
#undef TK_X
  default:
    return std::nullopt;
  }
}

std::optional<Intrinsic> tt_init(ops::Op op) {
  switch (op) {
#define TK_X(op, surface, args, kind, call, init, header, fn, body)                                \
  TK_OPS_SFPU(kind, case ops::Op::op : return Intrinsic::init;)
    TK_TILE_OPS(TK_X)
#undef TK_X
  default:
    return std::nullopt;
  }
}

std::optional<Intrinsic> f32_intrinsic(ops::Op op) {
  switch (op) {
#define TK_X(op, surface, args, kind, call, init, header, fn, body)                                \
  TK_OPS_UNARY(kind, case ops::Op::op : return Intrinsic::f32_##op;)
    TK_TILE_OPS(TK_X)
#undef TK_X
  default:
    return std::nullopt;
  }
}

} // namespace tk::ir
