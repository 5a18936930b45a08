// Host packing of block-float tiles: tt-metalium/bfloat8.hpp (Bfp8_b) and bfloat4.hpp (Bfp4_b).
// One implementation over the format (its page size, encoder and decoder: blockfloat.cpp); the
// SDK's functions below only name it.
#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/bfloat4.hpp>
#include <tt-metalium/bfloat8.hpp>

#include <array>
#include <cstring>
#include <stdexcept>
#include <string>

#include "bfp4.hpp"
#include "bfp8.hpp"

namespace {

struct Bfp8 {
  static constexpr std::uint32_t kTileBytes = tk::rt::emu::bfp8::kTileBytes;
  static constexpr const char* kName = "bfp8";
  static constexpr const char* kExpA = "Bfp8, 5-bit exponents";
  static constexpr const char* kFormat = "Bfp8_b";
  static void encode(const float* v, std::uint8_t* p) { tk::rt::emu::bfp8::encode_tile(v, p); }
  static std::array<float, 1024> decode(const std::uint8_t* p) {
    return tk::rt::emu::bfp8::decode_tile(p);
  }
};
struct Bfp4 {
  static constexpr std::uint32_t kTileBytes = tk::rt::emu::bfp4::kTileBytes;
  static constexpr const char* kName = "bfp4";
  static constexpr const char* kExpA = "5-bit exponents";
  static constexpr const char* kFormat = "Bfp4_b";
  static void encode(const float* v, std::uint8_t* p) { tk::rt::emu::bfp4::encode_tile(v, p); }
  static std::array<float, 1024> decode(const std::uint8_t* p) {
    return tk::rt::emu::bfp4::decode_tile(p);
  }
};

// Element (r, c) of a tile sits at this position of its face order.
int face_pos(int r, int c) {
  return ((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16;
}

template <typename F>
void require_exp_b(bool is_exp_a, const std::string& fn) {
  if (is_exp_a)
    throw std::invalid_argument(fn + ": is_exp_a = true (" + F::kExpA +
                                ") is not modelled by the emulator; " + F::kFormat +
                                " takes is_exp_a = false");
}

template <typename F, typename T>
std::vector<std::uint32_t> pack(ttsl::Span<const T> data, bool row_major_input, bool is_exp_a) {
  const std::string fn = std::string("pack_as_") + F::kName + "_tiles";
  require_exp_b<F>(is_exp_a, fn);
  if (data.size() % 1024 != 0)
    throw std::invalid_argument(fn + ": " + std::to_string(data.size()) +
                                " values are not a whole number of 32x32 tiles");
  const std::size_t tiles = data.size() / 1024;
  std::vector<std::uint32_t> out(tiles * F::kTileBytes / 4);
  std::array<float, 1024> faces{};
  for (std::size_t t = 0; t < tiles; ++t) {
    for (int r = 0; r < 32; ++r)
      for (int c = 0; c < 32; ++c) {
        const int src = row_major_input ? r * 32 + c : face_pos(r, c);
        faces[face_pos(r, c)] = static_cast<float>(data[t * 1024 + src]);
      }
    std::uint8_t page[F::kTileBytes];
    F::encode(faces.data(), page);
    std::memcpy(out.data() + t * F::kTileBytes / 4, page, F::kTileBytes);
  }
  return out;
}

template <typename F>
std::vector<float> unpack(ttsl::Span<const std::uint32_t> words, bool row_major_output,
                          bool is_exp_a) {
  const std::string fn = std::string("unpack_") + F::kName + "_tiles_into_float_vec";
  require_exp_b<F>(is_exp_a, fn);
  if (words.size() * 4 % F::kTileBytes != 0)
    throw std::invalid_argument(fn + ": " + std::to_string(words.size()) +
                                " words are not a whole number of " + F::kFormat + " tiles (" +
                                std::to_string(F::kTileBytes / 4) + " words each)");
  const std::size_t tiles = words.size() * 4 / F::kTileBytes;
  std::vector<float> out(tiles * 1024);
  for (std::size_t t = 0; t < tiles; ++t) {
    std::uint8_t page[F::kTileBytes];
    std::memcpy(page, words.data() + t * F::kTileBytes / 4, F::kTileBytes);
    const std::array<float, 1024> faces = F::decode(page);
    for (int r = 0; r < 32; ++r)
      for (int c = 0; c < 32; ++c)
        out[t * 1024 + (row_major_output ? r * 32 + c : face_pos(r, c))] = faces[face_pos(r, c)];
  }
  return out;
}

} // namespace

template <typename T>
std::vector<std::uint32_t> pack_as_bfp8_tiles(ttsl::Span<const T> data, bool row_major_input,
                                              bool is_exp_a) {
  return pack<Bfp8>(data, row_major_input, is_exp_a);
}
template <typename T>
std::vector<std::uint32_t> pack_as_bfp4_tiles(ttsl::Span<const T> data, bool row_major_input,
                                              bool is_exp_a) {
  return pack<Bfp4>(data, row_major_input, is_exp_a);
}
template std::vector<std::uint32_t> pack_as_bfp8_tiles<float>(ttsl::Span<const float>, bool, bool);
template std::vector<std::uint32_t> pack_as_bfp8_tiles<bfloat16>(ttsl::Span<const bfloat16>, bool,
                                                                 bool);
template std::vector<std::uint32_t> pack_as_bfp4_tiles<float>(ttsl::Span<const float>, bool, bool);
template std::vector<std::uint32_t> pack_as_bfp4_tiles<bfloat16>(ttsl::Span<const bfloat16>, bool,
                                                                 bool);

std::vector<float> unpack_bfp8_tiles_into_float_vec(ttsl::Span<const std::uint32_t> bfp8_tiles,
                                                    bool row_major_output, bool is_exp_a) {
  return unpack<Bfp8>(bfp8_tiles, row_major_output, is_exp_a);
}
std::vector<float> unpack_bfp4_tiles_into_float_vec(ttsl::Span<const std::uint32_t> bfp_tiles,
                                                    bool row_major_output, bool is_exp_a) {
  return unpack<Bfp4>(bfp_tiles, row_major_output, is_exp_a);
}
