// bfp8 inputs on the CPU: the values a Tenstorrent device sees in a Bfp8_b buffer, so that both
// targets compute on the same numbers. docs/language.md ("Precision") defines the rounding.
#pragma once

#include <tilekit/runtime.hpp>

#include <vector>

namespace tk::cpu {

/// The values of `v` rounded as Bfp8_b stores them: each run of 16 values of a row that starts at
/// a column multiple of 16 (a row of one 16x16 face of a 32x32 tile; past the last column the row
/// is padded with zeros, as a tile is) shares the largest exponent among them, and each value keeps
/// a sign and 7 bits of magnitude relative to it, rounded to nearest even (after the bits more than
/// 17 places below the last kept one are dropped, as tt-metal's packer does) and at most 127;
/// zeros and denormals become 0.
std::vector<float> round_to_bfp8(MatrixView<const float> v);
/// The same for each matrix of a batch.
std::vector<float> round_to_bfp8(TensorView<const float> v);

/// Rounds `v` in place as a Tenstorrent packer writes a bfp8 output into Bfp8_b pages
/// (bfp8_pack_precise): each value truncated to bf16, then each run of 16 as above rounded to the
/// largest exponent among them, to nearest with ties away from zero, at most 127; zeros and
/// denormals become 0.
void pack_to_bfp8(MatrixView<float> v);
/// The same for each matrix of a batch.
void pack_to_bfp8(TensorView<float> v);

} // namespace tk::cpu
