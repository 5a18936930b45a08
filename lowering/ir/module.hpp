// A module of the tile IR: typed attributes, and one Program per DSL kernel holding its tensors,
// circular buffers and functions (one `kernel` function after to-tile-ir; reader, compute and
// writer after split-kernels; a `cpu` function on the CPU chain).
#pragma once

#include "lowering/ir/host_plan.hpp"
#include "lowering/ir/nodes.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tk::ir {

/// An attribute value: int (`2`), bool (`true`), string (`"HiFi4"`), grid (`8x8`) or a list
/// (`[1, "a", [2, 3]]`).
struct AttrValue {
  std::variant<std::int64_t, bool, std::string, Grid, std::vector<AttrValue>> value;
  friend bool operator==(const AttrValue&, const AttrValue&) = default;
};
/// Sorted by key, so printing is canonical.
using Attrs = std::map<std::string, AttrValue, std::less<>>;

/// A tensor dimension: a name bound at run time (`M`) or a literal (`1`, `64`).
struct Dim {
  std::string name;      // empty for a literal
  std::int64_t size = 0; // the literal
  friend bool operator==(const Dim&, const Dim&) = default;
};

/// Where and how a tensor lives; set by infer-layout. Printed
/// `layout dram interleaved tile 32x32 page 2048`.
struct Layout {
  MemoryKind memory = MemoryKind::dram;
  LayoutKind kind = LayoutKind::interleaved;
  std::int64_t tile_h = 32, tile_w = 32;
  std::int64_t page_size = 0; // bytes
  friend bool operator==(const Layout&, const Layout&) = default;
};

struct Tensor {
  std::string name;
  DType dtype = DType::bf16;
  std::vector<Dim> dims;
  TensorRole role = TensorRole::input;
  std::optional<Layout> layout;
  Loc loc;
  friend bool operator==(const Tensor&, const Tensor&) = default;
};

/// A circular buffer (TT chain). Printed
/// `cb cb_in0 index 0 format Float16_b page 2048 depth 2 role input tensor A`.
struct CircularBuffer {
  std::string name;
  std::int64_t index = 0; // 0..31: inputs 0-7, outputs 16-23, intermediates 24-31
  DataFormat format = DataFormat::Float16_b;
  std::int64_t page_size = 0; // bytes
  std::int64_t depth = 2;     // pages
  CBRole role = CBRole::input;
  std::string tensor; // the tensor it streams, empty if none
  friend bool operator==(const CircularBuffer&, const CircularBuffer&) = default;
};

/// A function parameter: a tensor of the program (type tensor), a size, or a scalar.
struct Param {
  std::string name;
  Type type;
  friend bool operator==(const Param&, const Param&) = default;
};

struct Function {
  std::string name;
  FuncKind kind = FuncKind::kernel;
  std::vector<Param> params;
  Attrs attrs;
  Stmt body;
  Loc loc;
  /// How the host launches this reader, compute or writer (host_plan.hpp); set from
  /// bind-runtime-args on, absent on every other function.
  std::optional<KernelConfig> config = {};
};

struct Program {
  std::string name;
  Attrs attrs;
  std::vector<Tensor> tensors;
  std::vector<CircularBuffer> cbs;
  std::vector<Function> functions;
  Loc loc;
  /// TensorAccessor compile-time args per tensor (attach-accessors), tensor order.
  std::vector<Accessor> accessors = {};
  /// What the host does besides its function's lets (host_plan.hpp); from partition-work on.
  std::optional<HostPlan> host_plan = {};

  const Tensor* find_tensor(std::string_view name) const;
  const CircularBuffer* find_cb(std::string_view name) const;
  const Accessor* find_accessor(std::string_view tensor) const;
};

struct Module {
  Attrs attrs;
  std::vector<Program> programs;
};

/// True when `b` is `a` untouched: equal attributes, tensors, CBs, accessors, host plan and kernel
/// configs, and every function body is the same node (pointer). This is how the driver detects an
/// unchanged stage.
bool identical(const Module& a, const Module& b);

} // namespace tk::ir
