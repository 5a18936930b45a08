// Value types and the small closed enums of the tile IR (loop roles, function kinds, tensor and
// circular-buffer roles, data formats), each with its one printed spelling.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tk::ir {

enum class DType : std::uint8_t { bf16, f32, bfp8 };
std::string_view to_string(DType);
std::optional<DType> dtype_from_string(std::string_view);
/// Bytes of one 32x32 tile of this element type.
std::int64_t tile_bytes(DType);

/// The type of an expression. Integers are index math (i32) or raw device words (u32: addresses,
/// runtime args); f32 is a scalar; a tile carries its element type; cb/tensor are references to a
/// circular buffer or a tensor (its accessor) passed to intrinsics; enumc is a symbolic constant.
struct Type {
  enum class Kind : std::uint8_t { void_, i32, u32, f32, boolean, tile, cb, tensor, enumc };
  Kind kind = Kind::void_;
  DType dtype = DType::f32; // meaningful for tiles only

  static Type void_() { return {Kind::void_}; }
  static Type i32() { return {Kind::i32}; }
  static Type u32() { return {Kind::u32}; }
  static Type f32() { return {Kind::f32}; }
  static Type boolean() { return {Kind::boolean}; }
  static Type tile(DType d) { return {Kind::tile, d}; }
  static Type cb() { return {Kind::cb}; }
  static Type tensor() { return {Kind::tensor}; }
  static Type enumc() { return {Kind::enumc}; }

  bool is_int() const { return kind == Kind::i32 || kind == Kind::u32; }
  bool is_tile() const { return kind == Kind::tile; }
  friend bool operator==(const Type& a, const Type& b) {
    return a.kind == b.kind && (a.kind != Kind::tile || a.dtype == b.dtype);
  }
};
/// `i32`, `u32`, `f32`, `bool`, `tile<bf16>`, `cb`, `tensor`, `enum`, `void`.
std::string to_string(Type);
std::optional<Type> type_from_string(std::string_view);

/// What a loop means; set by the stage that creates the loop, never inferred from names.
/// parallel: independent iterations (the DSL's parallel space); serial: ordered, no carried
/// reduction; reduction: carries an accumulation; per_core: a core's share of the work after
/// to-core-loop; per_thread: a thread's share after partition-threads.
enum class ForRole : std::uint8_t { parallel, serial, reduction, per_core, per_thread };
std::string_view to_string(ForRole);
std::optional<ForRole> for_role_from_string(std::string_view);

/// kernel: the target-independent body of one DSL kernel; reader/compute/writer: TT kernels
/// after split-kernels; cpu: the CPU kernel; host: the host plan.
enum class FuncKind : std::uint8_t { kernel, reader, compute, writer, cpu, host };
std::string_view to_string(FuncKind);
std::optional<FuncKind> func_kind_from_string(std::string_view);

enum class TensorRole : std::uint8_t { input, output, intermediate };
std::string_view to_string(TensorRole);
std::optional<TensorRole> tensor_role_from_string(std::string_view);

enum class CBRole : std::uint8_t { input, output, intermediate, scaler };
std::string_view to_string(CBRole);
std::optional<CBRole> cb_role_from_string(std::string_view);

/// TT-Metalium tt::DataFormat values used for CBs (docs/tt_metal.md §1.3), spelled as in the SDK.
enum class DataFormat : std::uint8_t { Float32 = 0, Float16_b = 5, Bfp8_b = 6 };
std::string_view to_string(DataFormat);
std::optional<DataFormat> data_format_from_string(std::string_view);
DataFormat data_format_of(DType);

enum class MemoryKind : std::uint8_t { dram, l1 };
std::string_view to_string(MemoryKind);
std::optional<MemoryKind> memory_kind_from_string(std::string_view);

enum class LayoutKind : std::uint8_t { interleaved, sharded };
std::string_view to_string(LayoutKind);
std::optional<LayoutKind> layout_kind_from_string(std::string_view);

/// A core grid, printed `8x8`.
struct Grid {
  std::int64_t x = 0;
  std::int64_t y = 0;
  friend bool operator==(const Grid&, const Grid&) = default;
};

} // namespace tk::ir
