#include "lowering/tt/target.hpp"

#include "lowering/ir/visitor.hpp"

namespace tk::lower::tt {

using ir::Intrinsic;

CbRange cb_range(ir::CBRole role) {
  switch (role) {
  case ir::CBRole::input:
  case ir::CBRole::scaler:
    return {0, 7};
  case ir::CBRole::output:
    return {16, 23};
  case ir::CBRole::intermediate:
    return {24, 31};
  }
  return {0, 7};
}

std::int64_t dst_capacity(bool fp32_acc) {
  return fp32_acc ? 4 : 8;
}

std::vector<std::size_t> dst_slot_args(Intrinsic fn) {
  switch (fn) {
  case Intrinsic::copy_tile:
    return {2};
  case Intrinsic::matmul_tiles:
  case Intrinsic::add_tiles:
  case Intrinsic::sub_tiles:
  case Intrinsic::mul_tiles:
    return {4};
  case Intrinsic::add_tiles_bcast:
  case Intrinsic::sub_tiles_bcast:
  case Intrinsic::mul_tiles_bcast:
    return {5};
  case Intrinsic::reduce_tile:
    return {6};
  case Intrinsic::exp_tile:
  case Intrinsic::log_tile:
  case Intrinsic::sqrt_tile:
  case Intrinsic::rsqrt_tile:
  case Intrinsic::recip_tile:
  case Intrinsic::relu_tile:
  case Intrinsic::gelu_tile:
  case Intrinsic::sigmoid_tile:
  case Intrinsic::tanh_tile:
  case Intrinsic::abs_tile:
  case Intrinsic::negative_tile:
  case Intrinsic::square_tile:
  case Intrinsic::fill_tile:
  case Intrinsic::add_unary_tile:
  case Intrinsic::sub_unary_tile:
  case Intrinsic::rsub_unary_tile:
  case Intrinsic::mul_unary_tile:
    return {0};
  case Intrinsic::add_binary_tile:
  case Intrinsic::sub_binary_tile:
  case Intrinsic::mul_binary_tile:
  case Intrinsic::binary_max_tile:
  case Intrinsic::binary_min_tile:
    return {0, 1, 2};
  default:
    return {};
  }
}

bool writes_dst(Intrinsic fn) {
  return !dst_slot_args(fn).empty();
}

bool is_compute_init(Intrinsic fn) {
  switch (fn) {
  case Intrinsic::compute_kernel_hw_startup:
  case Intrinsic::copy_tile_init:
  case Intrinsic::copy_tile_to_dst_init_short:
  case Intrinsic::mm_init:
  case Intrinsic::mm_init_short:
  case Intrinsic::binary_op_init_common:
  case Intrinsic::add_tiles_init:
  case Intrinsic::sub_tiles_init:
  case Intrinsic::mul_tiles_init:
  case Intrinsic::init_bcast:
  case Intrinsic::bcast_init:
  case Intrinsic::add_bcast_rows_init_short:
  case Intrinsic::add_bcast_cols_init_short:
  case Intrinsic::sub_bcast_rows_init_short:
  case Intrinsic::sub_bcast_cols_init_short:
  case Intrinsic::add_bcast_scalar_init_short:
  case Intrinsic::mul_bcast_rows_init_short:
  case Intrinsic::mul_bcast_cols_init_short:
  case Intrinsic::reduce_init:
  case Intrinsic::reduce_uninit:
  case Intrinsic::init_sfpu:
  case Intrinsic::unary_op_init_common:
  case Intrinsic::exp_tile_init:
  case Intrinsic::log_tile_init:
  case Intrinsic::sqrt_tile_init:
  case Intrinsic::rsqrt_tile_init:
  case Intrinsic::recip_tile_init:
  case Intrinsic::relu_tile_init:
  case Intrinsic::gelu_tile_init:
  case Intrinsic::sigmoid_tile_init:
  case Intrinsic::tanh_tile_init:
  case Intrinsic::abs_tile_init:
  case Intrinsic::negative_tile_init:
  case Intrinsic::square_tile_init:
  case Intrinsic::fill_tile_init:
  case Intrinsic::binop_with_scalar_tile_init:
  case Intrinsic::add_binary_tile_init:
  case Intrinsic::sub_binary_tile_init:
  case Intrinsic::mul_binary_tile_init:
  case Intrinsic::binary_max_tile_init:
  case Intrinsic::binary_min_tile_init:
    return true;
  default:
    return false;
  }
}

namespace {
const ir::AttrValue* find(const ir::Program& p, std::string_view key) {
  auto it = p.attrs.find(key);
  return it == p.attrs.end() ? nullptr : &it->second;
}
} // namespace

bool dst_fp32(const ir::Program& p) {
  return option_bool(p, "dst_fp32", option_bool(p, "fp32_acc", false));
}

bool decide_dst_fp32(const ir::Program& p, const ir::Function& kernel) {
  struct FindMatmul : ir::Visitor {
    bool found = false;
    void visit_node(const ir::Call& c) override {
      found |= c.fn == ir::Intrinsic::tile_matmul || c.fn == ir::Intrinsic::tile_matmul_acc;
      ir::Visitor::visit_node(c);
    }
  } finder;
  finder.visit(kernel.body);
  return option_bool(p, "fp32_acc", false) || finder.found;
}

bool option_bool(const ir::Program& p, std::string_view key, bool fallback) {
  const ir::AttrValue* v = find(p, key);
  const bool* b = v ? std::get_if<bool>(&v->value) : nullptr;
  return b ? *b : fallback;
}

std::int64_t option_int(const ir::Program& p, std::string_view key, std::int64_t fallback) {
  const ir::AttrValue* v = find(p, key);
  const std::int64_t* i = v ? std::get_if<std::int64_t>(&v->value) : nullptr;
  return i ? *i : fallback;
}

std::string option_string(const ir::Program& p, std::string_view key, std::string_view fallback) {
  const ir::AttrValue* v = find(p, key);
  const std::string* s = v ? std::get_if<std::string>(&v->value) : nullptr;
  return s ? *s : std::string(fallback);
}

ir::Grid option_grid(const ir::Program& p) {
  const ir::AttrValue* v = find(p, "grid");
  const ir::Grid* g = v ? std::get_if<ir::Grid>(&v->value) : nullptr;
  return g ? *g : ir::Grid{8, 8};
}

} // namespace tk::lower::tt
