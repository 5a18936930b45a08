// guard-fast-exp: tt-llk's unclamped approximate exp (exp_tile.approx_noclamp, selected where
// prove_nonpositive.hpp proved its argument at most 0) is right only for arguments down to about
// -88: below (-inf, a masked score, included) it leaves a negative value in DST. TTNN's SDPA packs
// it with the packer's ReLU on, which writes those as 0 (docs/lowering.md, "Approximate exp").
// This stage, on the final DST sections: where the DST slot of every such exp is read only by
// pack_tile in its section, the run of those packs gets pack_relu_config(ReluType::ZERO_RELU)
// before it and pack_relu_config(ReluType::NO_RELU) after it, so no other pack sees the ReLU and
// every consumer reads the packed value; where anything else reads such a slot (an SFPU op on it,
// a slot that is not a literal, a section this stage cannot follow), every exp of the kernel
// falls back to the clamped exp_tile.approx.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module guard_fast_exp(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
