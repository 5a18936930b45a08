// The Bfp8_b tile format (block floating point, "_b": the shared exponent is bf16's 8-bit one): a
// 32x32 tile is four 16x16 faces; each face row of 16 values shares one 8-bit exponent. A page is
// the 64 exponent bytes (face by face, row by row) followed by the 1024 value bytes in the same
// order, each a sign bit and a 7-bit magnitude m: the value is m * 2^(shared_exp - 127 - 6).
// Written from the format as tt-metal defines it (tt_metal/impl/data_format/blockfloat_common.cpp:
// the exponent section first, round to nearest even on packing, zero and denormals as 0); no
// Debian package implements it. Used by the emulator's unpacker and by the host's
// pack_as_bfp8_tiles / unpack_bfp8_tiles_into_float_vec.
#pragma once

#include <array>
#include <cstdint>

namespace tk::rt::emu::bfp8 {

inline constexpr std::uint32_t kTileBytes = 1088; // tt::tile_size(DataFormat::Bfp8_b)

/// One tile of values in face order (face 0..3, each row-major 16x16) from a Bfp8_b page.
std::array<float, 1024> decode_tile(const std::uint8_t* page);
/// One value: a code (sign bit and 7-bit magnitude) against its row's shared exponent, as the
/// SDK's convert_bfp_to_u32(Bfp8_b, code, shared_exp, false) reads it.
float decode_value(std::uint8_t code, std::uint8_t shared_exp);
/// One tile of values in face order into a Bfp8_b page as the SDK's host helper
/// (pack_as_bfp8_tiles) writes it: each face row rounded to its shared exponent with ties to
/// even, magnitudes saturating at 127.
void encode_tile(const float* values, std::uint8_t* page);
/// The same as Wormhole's packer writes it with ComputeConfig::bfp8_pack_precise (its source
/// format then Float32 or Float16_b, tt_metal/jit_build/data_format.cpp): the late format
/// conversion truncates each value to bf16, then rounds it to the face row's shared exponent
/// (the largest) to nearest with ties away from zero (tt-isa-documentation, WormholeB0 Packer
/// "Format Conversion"). Magnitudes saturate at 127, as the host helper's do: the document does
/// not say what a magnitude that rounds up to 128 becomes.
void encode_tile_packer(const float* values, std::uint8_t* page);

} // namespace tk::rt::emu::bfp8
