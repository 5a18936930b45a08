// DEVICE_PRINT (mirrors tt_metal/hw/inc/api/debug/device_print.h): a kernel's formatted message
// on the host's stdout, as the SDK's print server shows it when TT_METAL_DPRINT_CORES is set (any
// value: the emulator prints every core's messages; it does not select cores). The format is the
// SDK's: "{}" takes the next argument ("{:...}" too, its spec ignored), "{{" and "}}" are braces.
// Integers print in decimal, floats and bf16_t as the shortest text that reads back the same value.
// A TileSlice prints as the SDK's print server shows it (put_tile_slice).
// DEVICE_PRINT_MATH/_UNPACK/_PACK print once each (the emulator runs one compute thread for the
// three); DEVICE_PRINT_DATA0/_DATA1 print on the data-movement kernel on NoC 0 / NoC 1.
#pragma once
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "api/debug/dprint_tile.h"
#include "tk_emulator/device_api.hpp"

struct bf16_t {
  uint16_t val;
  bf16_t(uint16_t val) : val(val) {}
};

namespace tk_emu_device_print {

inline void put_float(std::string& out, float f) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, f);
  out.append(buf, r.ptr);
}

inline const char* format_name(uint8_t f) {
  switch (static_cast<DataFormat>(f)) {
  case DataFormat::Float32:
    return "Float32";
  case DataFormat::Float16:
    return "Float16";
  case DataFormat::Bfp8:
    return "Bfp8";
  case DataFormat::Bfp4:
    return "Bfp4";
  case DataFormat::Tf32:
    return "Tf32";
  case DataFormat::Float16_b:
    return "Float16_b";
  case DataFormat::Bfp8_b:
    return "Bfp8_b";
  case DataFormat::Bfp4_b:
    return "Bfp4_b";
  case DataFormat::Int32:
    return "Int32";
  case DataFormat::UInt16:
    return "UInt16";
  case DataFormat::Lf8:
    return "Lf8";
  case DataFormat::Bfp2:
    return "Bfp2";
  case DataFormat::Int16:
    return "Int16";
  case DataFormat::Int8:
    return "Int8";
  case DataFormat::Bfp2_b:
    return "Bfp2_b";
  case DataFormat::UInt32:
    return "UInt32";
  case DataFormat::Fp8_e4m3:
    return "Fp8_e4m3";
  case DataFormat::UInt8:
    return "UInt8";
  default:
    return "Invalid";
  }
}

// A TileSlice as the SDK's print server shows it (tt_metal/impl/debug/dprint_parser.cpp, case
// 't'): the sampled elements of each row of the slice separated by spaces, a newline after each
// row when endl_rows, and a note when the slice held more elements than MAX_BYTES kept.
template <int N>
void put_tile_slice(std::string& out, const TileSliceHostDev<N>& ts) {
  if (ts.return_code == DPrintErrorUnsupportedFormat) {
    out += "Tried printing CBIndex::c_" + std::to_string(ts.cb_id) + ": Unsupported data format (" +
           format_name(ts.data_format) + ")\n";
    return;
  }
  const auto format = static_cast<DataFormat>(ts.data_format);
  const SliceRange& r = ts.slice_range;
  uint32_t i = 0;
  for (int h = r.h0; h < r.h1; h += r.hs) {
    bool exceeded = false;
    for (int w = r.w0; w < r.w1; w += r.ws) {
      if (i >= ts.data_count) {
        exceeded = true;
        break;
      }
      const uint8_t* d = ts.data;
      switch (format) {
      case DataFormat::Float16_b: {
        uint16_t v;
        std::memcpy(&v, d + 2 * i, 2);
        const uint32_t bits = static_cast<uint32_t>(v) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        put_float(out, f);
        break;
      }
      case DataFormat::Float32: {
        float v;
        std::memcpy(&v, d + 4 * i, 4);
        put_float(out, v);
        break;
      }
      case DataFormat::Bfp8_b:
      case DataFormat::Bfp4_b:
        // The shared exponent then the code (dprint_parser.cpp: data_ptr[i] & 0xFF, >> 8).
        put_float(out,
                  ::tk::rt::emu::bfp_value(d[2 * i + 1], d[2 * i], format == DataFormat::Bfp4_b));
        break;
      case DataFormat::Int8:
        out += std::to_string(static_cast<int>(static_cast<int8_t>(d[i])));
        break;
      case DataFormat::UInt8:
        out += std::to_string(static_cast<unsigned>(d[i]));
        break;
      case DataFormat::UInt16: {
        uint16_t v;
        std::memcpy(&v, d + 2 * i, 2);
        out += std::to_string(static_cast<unsigned>(v));
        break;
      }
      case DataFormat::Int32: {
        int32_t v;
        std::memcpy(&v, d + 4 * i, 4);
        out += std::to_string(v);
        break;
      }
      case DataFormat::UInt32: {
        uint32_t v;
        std::memcpy(&v, d + 4 * i, 4);
        out += std::to_string(v);
        break;
      }
      default:
        break;
      }
      if (w + r.ws < r.w1)
        out += ' ';
      ++i;
    }
    if (exceeded) {
      out += "<TileSlice data truncated due to exceeding max count (" +
             std::to_string(ts.data_count) + ")>\n";
      break;
    }
    if (ts.endl_rows)
      out += '\n';
  }
}

// Whether a type is a TileSlice (derives from TileSliceHostDev<N>); kernels compile as C++17.
template <int N>
std::true_type is_tile_slice(const TileSliceHostDev<N>*);
std::false_type is_tile_slice(...);

template <typename T>
void put(std::string& out, const T& v) {
  using U = std::decay_t<T>;
  if constexpr (decltype(is_tile_slice(static_cast<const U*>(nullptr)))::value) {
    put_tile_slice(out, v);
  } else if constexpr (std::is_same_v<U, bf16_t>) {
    const std::uint32_t bits = static_cast<std::uint32_t>(v.val) << 16;
    float f = 0;
    std::memcpy(&f, &bits, 4);
    put_float(out, f);
  } else if constexpr (std::is_same_v<U, bool>) {
    out += v ? "true" : "false";
  } else if constexpr (std::is_same_v<U, char>) {
    out += v;
  } else if constexpr (std::is_floating_point_v<U>) {
    put_float(out, static_cast<float>(v));
  } else if constexpr (std::is_integral_v<U> || std::is_enum_v<U>) {
    out += std::to_string(
        static_cast<std::conditional_t<std::is_signed_v<U>, long long, unsigned long long>>(v));
  } else if constexpr (std::is_convertible_v<U, std::string_view>) {
    out += std::string_view(v);
  } else if constexpr (std::is_pointer_v<U>) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, reinterpret_cast<std::uintptr_t>(v), 16);
    out += "0x";
    out.append(buf, r.ptr);
  } else {
    static_assert(sizeof(U) == 0, "DEVICE_PRINT: the emulator does not print this type");
  }
}

/// Appends `fmt` up to its next "{...}" (unescaping "{{" and "}}"); returns the rest after it, or
/// npos-like empty view with found=false when there is none.
inline std::string_view text_until_field(std::string& out, std::string_view fmt, bool& found) {
  found = false;
  std::size_t i = 0;
  while (i < fmt.size()) {
    const char c = fmt[i];
    if ((c == '{' || c == '}') && i + 1 < fmt.size() && fmt[i + 1] == c) {
      out += c;
      i += 2;
    } else if (c == '{') {
      const std::size_t close = fmt.find('}', i);
      found = true;
      return close == std::string_view::npos ? std::string_view() : fmt.substr(close + 1);
    } else {
      out += c;
      ++i;
    }
  }
  return {};
}

inline void format(std::string& out, std::string_view fmt) {
  bool found = false;
  text_until_field(out, fmt, found);
}

template <typename First, typename... Rest>
void format(std::string& out, std::string_view fmt, const First& first, const Rest&... rest) {
  bool found = false;
  const std::string_view after = text_until_field(out, fmt, found);
  if (!found)
    return;
  put(out, first);
  format(out, after, rest...);
}

template <typename... Args>
void print(std::string_view fmt, const Args&... args) {
  std::string out;
  format(out, fmt, args...);
  ::tk::rt::emu::device_print(out.data(), out.size());
}

} // namespace tk_emu_device_print

#define DEVICE_PRINT(format, ...) ::tk_emu_device_print::print(format, ##__VA_ARGS__)
#define DEVICE_PRINT_UNPACK(format, ...) DEVICE_PRINT(format, ##__VA_ARGS__)
#define DEVICE_PRINT_MATH(format, ...) DEVICE_PRINT(format, ##__VA_ARGS__)
#define DEVICE_PRINT_PACK(format, ...) DEVICE_PRINT(format, ##__VA_ARGS__)
#if defined(COMPILE_FOR_BRISC) || defined(COMPILE_FOR_NCRISC)
#define DEVICE_PRINT_DATA0(format, ...)                                                            \
  if (noc_index == 0) {                                                                            \
    DEVICE_PRINT(format, ##__VA_ARGS__);                                                           \
  }
#define DEVICE_PRINT_DATA1(format, ...)                                                            \
  if (noc_index == 1) {                                                                            \
    DEVICE_PRINT(format, ##__VA_ARGS__);                                                           \
  }
#else
#define DEVICE_PRINT_DATA0(format, ...)
#define DEVICE_PRINT_DATA1(format, ...)
#endif
