#include "lowering/tt/cb_tile_args.hpp"

namespace tk::lower::tt {

std::vector<std::pair<std::size_t, std::size_t>> cb_tile_args(ir::Intrinsic fn) {
  switch (fn) {
  case ir::Intrinsic::matmul_tiles:
  case ir::Intrinsic::matmul_tiles_bt:
    return {{0, 2}, {1, 3}};
  case ir::Intrinsic::copy_tile:
  case ir::Intrinsic::cb_tile:
    return {{0, 1}};
  case ir::Intrinsic::unary_bcast: // the broadcast type is argument 0
    return {{1, 2}};
  case ir::Intrinsic::add_tiles_bcast: // the broadcast type is argument 0
  case ir::Intrinsic::sub_tiles_bcast:
  case ir::Intrinsic::mul_tiles_bcast:
    return {{1, 3}, {2, 4}};
  case ir::Intrinsic::reduce_tile: // the pool type and dimension are arguments 0 and 1
    return {{2, 4}, {3, 5}};
  default:
    return {};
  }
}

} // namespace tk::lower::tt
