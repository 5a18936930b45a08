// Host packing of Bfp4_b tiles: tt-metalium/bfloat4.hpp.
#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/bfloat4.hpp>

#include <array>
#include <cstring>
#include <stdexcept>

#include "bfp4.hpp"

namespace {
using tk::rt::emu::bfp4::kTileBytes;

// Element (r, c) of a tile sits at this position of its face order.
int face_pos(int r, int c) {
  return ((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16;
}

void require_exp_b(bool is_exp_a, const char* fn) {
  if (is_exp_a)
    throw std::invalid_argument(std::string(fn) +
                                ": is_exp_a = true (5-bit exponents) is not modelled by the "
                                "emulator; Bfp4_b takes is_exp_a = false");
}
} // namespace

template <typename T>
std::vector<std::uint32_t> pack_as_bfp4_tiles(ttsl::Span<const T> data, bool row_major_input,
                                              bool is_exp_a) {
  require_exp_b(is_exp_a, "pack_as_bfp4_tiles");
  if (data.size() % 1024 != 0)
    throw std::invalid_argument("pack_as_bfp4_tiles: " + std::to_string(data.size()) +
                                " values are not a whole number of 32x32 tiles");
  const std::size_t tiles = data.size() / 1024;
  std::vector<std::uint32_t> out(tiles * kTileBytes / 4);
  std::array<float, 1024> faces{};
  for (std::size_t t = 0; t < tiles; ++t) {
    for (int r = 0; r < 32; ++r)
      for (int c = 0; c < 32; ++c) {
        const int src = row_major_input ? r * 32 + c : face_pos(r, c);
        faces[face_pos(r, c)] = static_cast<float>(data[t * 1024 + src]);
      }
    std::uint8_t page[kTileBytes];
    tk::rt::emu::bfp4::encode_tile(faces.data(), page);
    std::memcpy(out.data() + t * kTileBytes / 4, page, kTileBytes);
  }
  return out;
}

template std::vector<std::uint32_t> pack_as_bfp4_tiles<float>(ttsl::Span<const float>, bool, bool);
template std::vector<std::uint32_t> pack_as_bfp4_tiles<bfloat16>(ttsl::Span<const bfloat16>, bool,
                                                                 bool);

std::vector<float> unpack_bfp4_tiles_into_float_vec(ttsl::Span<const std::uint32_t> bfp_tiles,
                                                    bool row_major_output, bool is_exp_a) {
  require_exp_b(is_exp_a, "unpack_bfp4_tiles_into_float_vec");
  if (bfp_tiles.size() * 4 % kTileBytes != 0)
    throw std::invalid_argument(
        "unpack_bfp4_tiles_into_float_vec: " + std::to_string(bfp_tiles.size()) +
        " words are not a whole number of Bfp4_b tiles (144 words each)");
  const std::size_t tiles = bfp_tiles.size() * 4 / kTileBytes;
  std::vector<float> out(tiles * 1024);
  for (std::size_t t = 0; t < tiles; ++t) {
    std::uint8_t page[kTileBytes];
    std::memcpy(page, bfp_tiles.data() + t * kTileBytes / 4, kTileBytes);
    const std::array<float, 1024> faces = tk::rt::emu::bfp4::decode_tile(page);
    for (int r = 0; r < 32; ++r)
      for (int c = 0; c < 32; ++c)
        out[t * 1024 + (row_major_output ? r * 32 + c : face_pos(r, c))] = faces[face_pos(r, c)];
  }
  return out;
}
