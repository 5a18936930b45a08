// Small matchers the compute-kernel stages share: the call a statement evaluates, the CB an
// argument names, and the DST slots a call names (pack_tile's first argument with the others).
#pragma once
#include "lowering/tt/target.hpp"

#include <string>
#include <vector>

namespace tk::lower::tt {

/// The call `s` evaluates, if `s` is a call statement.
inline const ir::Call* call_of(const ir::Stmt& s) {
  const ir::Evaluate* e = ir::as<ir::Evaluate>(s);
  return e ? ir::as<ir::Call>(e->call) : nullptr;
}

/// The name of the CB `e` refers to; empty when `e` is not a CB.
inline std::string cb_name(const ir::Expr& e) {
  const ir::Ref* r = ir::as<ir::Ref>(e);
  return r && r->type.kind == ir::Type::Kind::cb ? r->name : std::string();
}

/// The DST slots a call names: its slot arguments, or pack_tile's first (the slot it packs).
inline std::vector<std::size_t> slot_args(ir::Intrinsic fn) {
  if (fn == ir::Intrinsic::pack_tile)
    return {0};
  return dst_slot_args(fn);
}

} // namespace tk::lower::tt
