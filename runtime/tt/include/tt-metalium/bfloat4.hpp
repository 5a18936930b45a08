// Host packing of Bfp4_b tiles (mirrors tt_metal/api/tt-metalium/bfloat4.hpp): a buffer of
// 32x32 tiles as the device reads Bfp4_b pages, 144 words (576 bytes) a tile. The SDK's optional
// last parameter, a tt::tt_metal::Tile of another shape, is not modelled: tiles are 32x32.
#pragma once
#include <cstdint>
#include <vector>

#include <tt-metalium/host_api.hpp>

/// `data` holds whole tiles: each row-major (`row_major_input`) or already in face order. Only
/// `is_exp_a = false` (the 8-bit exponent of Bfp4_b, which the SDK's helper writes) is modelled;
/// T is float or bfloat16.
template <typename T>
std::vector<std::uint32_t> pack_as_bfp4_tiles(ttsl::Span<const T> data, bool row_major_input,
                                              bool is_exp_a);

std::vector<float> unpack_bfp4_tiles_into_float_vec(ttsl::Span<const std::uint32_t> bfp_tiles,
                                                    bool row_major_output, bool is_exp_a);
