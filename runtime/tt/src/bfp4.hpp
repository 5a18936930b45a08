// The Bfp4_b tile format: Bfp8_b's layout (bfp8.hpp) with 4-bit values. A page is the 64 shared
// exponent bytes (face by face, row by row; 8-bit, bf16's) followed by 512 bytes of values, two a
// byte in the same order: value 2k in the low nibble of byte k, value 2k+1 in the high one (the
// SDK packs value [0] into the least significant bits of each 32-bit word, eight a word). Each is
// a sign bit and a 3-bit magnitude m: the value is m * 2^(shared_exp - 127 - 2). Written from
// tt-metal's tt_metal/impl/data_format/blockfloat_common.cpp (convert_u32_to_bfp<Bfp4_b>,
// create_packed_bfp_packed_as_u32, convert_bfp_to_u32) and bfloat4.cpp (pack_as_bfp4_tiles ->
// pack_as_bfp_tiles<Bfp4_b>), tt-metal a8c5af0f5a26. Used by the emulator's unpacker and packer
// and by the host's pack_as_bfp4_tiles / unpack_bfp4_tiles_into_float_vec.
#pragma once

#include <array>
#include <cstdint>

namespace tk::rt::emu::bfp4 {

inline constexpr std::uint32_t kTileBytes = 576; // tt::tile_size(DataFormat::Bfp4_b)

/// One tile of values in face order (face 0..3, each row-major 16x16) from a Bfp4_b page.
std::array<float, 1024> decode_tile(const std::uint8_t* page);
/// One value: a code (sign bit and 3-bit magnitude) against its row's shared exponent, as the
/// SDK's convert_bfp_to_u32(Bfp4_b, code, shared_exp, false) reads it.
float decode_value(std::uint8_t code, std::uint8_t shared_exp);
/// One tile of values in face order into a Bfp4_b page as the SDK's host helper
/// (pack_as_bfp4_tiles) writes it: each value's 24-bit mantissa shifted down to the face row's
/// shared (largest) exponent, then rounded to 3 bits to nearest with ties to even, saturating at 7.
void encode_tile(const float* values, std::uint8_t* page);
/// The same as the packer writes it with ComputeConfig::bfp8_pack_precise (its source format then
/// Float32 or Float16_b for any block-float output, tt_metal/jit_build/data_format.cpp
/// get_single_pack_src_format): truncated to bf16, then rounded to the shared exponent to nearest
/// with ties away from zero, as bfp8::encode_tile_packer; magnitudes saturate at 7.
void encode_tile_packer(const float* values, std::uint8_t* page);

} // namespace tk::rt::emu::bfp4
