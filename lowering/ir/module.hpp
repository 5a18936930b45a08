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
  /// An input CB the writer kernel fills (its reads on the writer's NoC, so that a program's DRAM
  /// reads use both NoCs: stream-rows); the reader fills every other input CB. Printed
  /// ` read_by writer` after the role.
  bool read_by_writer = false;
  /// An output CB the reader kernel drains (its writes on the reader's NoC): select-tile-ops packs
  /// into it the stores of `tensor` in the loops that read tiles of the row CB named here, which
  /// the reader fills (keep-rows: each NoC reads half a kept row and writes half its output).
  /// Printed ` written_by reader for <cb>` after the role.
  std::string reader_writes_for;
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

/// A program's options: its `@options` and ttgen's flags (--arch, --grid, --cb-depth, ...), set by
/// to-tile-ir and overridden by ttgen (lower::apply_overrides); every stage reads them here
/// (lower::tt::options). Printed on the program's first line of body (docs/ir.md, "Programs"):
/// `options arch "blackhole" grid 8x8 cb_depth 2 fp32_acc false math_fidelity "HiFi4"
/// matmul_block 4x4 q_chunk 4 exp_approx_mode`, the arch, grid, matmul_block, q_chunk and
/// exp_approx_mode only when set (q_chunk: not 0; exp_approx_mode: true).
struct Options {
  std::string arch;                    // an arch::find name; empty: arch::default_arch()
  std::optional<Grid> grid;            // cores (x columns, y rows); absent: the architecture's grid
  std::int64_t cb_depth = 2;           // pages per streaming CB
  bool fp32_acc = false;               // DST holds fp32 even where the kernel does not need it
  std::string math_fidelity = "HiFi4"; // as the DSL spells it; finalize-signature checks it
  /// The blocked matmul's block of output tiles (@options(matmul_block = RxC)); 0: the rule's.
  std::int64_t matmul_rows = 0, matmul_cols = 0;
  /// Query tile rows per work item of a row-of-tiles kernel on TT (@options(q_chunk = N),
  /// docs/lowering.md, "The Q chunk"); 0: the host's rule at run time (tt.q_chunk), where the
  /// kernel has the shape chunk-rows chunks, else one row per item.
  std::int64_t q_chunk = 0;
  /// @options(exp_approx_mode = true): select-tile-ops lowers `exp` to tt-llk's approximate
  /// exp_tile<true> except where its value rescales a carried value (docs/language.md,
  /// "Precision").
  bool exp_approx_mode = false;
  friend bool operator==(const Options&, const Options&) = default;
};

/// What choose-blocks decides for a blocked matmul (docs/lowering.md, "Blocked matmul"), read by
/// block-matmul, partition-work, keep-rows and select-tile-ops; absent on every other program.
/// Printed `blocking sub_block 2x2 caps 128 128 128 costs 71 68 28 66 2048 2048 30 933 2048 30 why
/// "..."`.
struct Blocking {
  std::int64_t sub_rows = 0, sub_cols = 0; // the DST sub-block (rows x cols of output tiles)
  // CB capacities in tiles: A's and B's (even: two K steps' blocks), the fp32 partial sums'.
  std::int64_t cap_a = 0, cap_b = 0, cap_partials = 0;
  /// What the run-time rule weighs (tt.matmul_block's arguments after the caps, in this order),
  /// from the timing model's table for the program's architecture.
  struct Costs {
    std::int64_t product = 0;            // cycles of a tile product (operand delivery included)
    std::int64_t round_trip = 0;         // cycles of a partial sum's copy back and its calls
    std::int64_t multicast = 0;          // B/cycle a sender multicasts
    std::int64_t dram = 0;               // B/cycle the chip's DRAM reads deliver together
    std::int64_t page_a = 0, page_b = 0; // bytes of a page of A, of B
    std::int64_t read = 0;               // B/cycle of a core's reads through its port
    std::int64_t step_latency = 0;       // cycles of a K step's DRAM read and multicast latency
    std::int64_t page_c = 0;             // bytes of a page of C
    std::int64_t write = 0;              // B/cycle of a core's writes through its port
    friend bool operator==(const Costs&, const Costs&) = default;
  } costs;
  std::string why; // the reasoning, in words (ttgen report, --print-after)
  friend bool operator==(const Blocking&, const Blocking&) = default;
};

/// What materialise decided for a computed operand of `@` invariant in a parallel index
/// (docs/lowering.md, "Recompute or materialise"), on the kernel's (first) program; absent on
/// every other program. Printed `materialise dram value "h" tensor "mlp_h" by rule why "..."`.
struct Materialise {
  enum class Choice : std::uint8_t { recompute, dram };
  /// rule: structural (sizes bound at run time); model: the timing model's table at the
  /// kernel's literal sizes; request: ttgen's --materialise (ttgen report prices the other way).
  enum class Basis : std::uint8_t { rule, model, request };
  Choice choice = Choice::dram;
  Basis basis = Basis::rule;
  std::string value;  // the IR variable decided on
  std::string tensor; // its scratch tensor (dram); empty when recomputed
  std::string why;    // the reasoning, in words (ttgen report, --print-after)
  friend bool operator==(const Materialise&, const Materialise&) = default;
};
std::string_view to_string(Materialise::Choice);
std::string_view to_string(Materialise::Basis);
std::optional<Materialise::Choice> materialise_choice_from_string(std::string_view);
std::optional<Materialise::Basis> materialise_basis_from_string(std::string_view);

/// A grouped index `K[h / 2, ...]` (to-tile-ir, from dsl::Kernel::grouped): dimension `outer` is
/// `ratio` times dimension `inner`, which the host checks before the kernel runs. Printed among
/// the program's attributes as one list per index, `grouped_dims = [["H", 2, "HK"]]`.
struct GroupedDim {
  std::string outer;
  std::int64_t ratio = 1;
  std::string inner;
  friend bool operator==(const GroupedDim&, const GroupedDim&) = default;
};

/// A row of tiles on TT (select-tile-ops): its CB `cb_<name>` holds `capacity` tiles, which must
/// cover the row, whose extent is the tile count of dimension `dim` (`tiles`) or, for a batch
/// dimension, its value; the host checks it. Printed among the program's attributes as one list
/// per row, `rows = [["o", "D", 64, true]]`.
struct RowOfTiles {
  std::string name;
  std::string dim;
  std::int64_t capacity = 0;
  bool tiles = true;
  friend bool operator==(const RowOfTiles&, const RowOfTiles&) = default;
};

struct Program {
  std::string name;
  Attrs attrs;
  /// The kernel's parameters, tensors and scalars, in declaration order (to-tile-ir; a second
  /// program's own, lower-reductions and materialise): what the generated run_cpu / run_tt take.
  /// Empty on hand-built programs. Printed among the attributes, `signature = ["A", "B", "C"]`
  /// (docs/ir.md, "Programs"), like `combine` and `dst_fp32`.
  std::vector<std::string> signature = {};
  /// The program generated after this one inside the same run_cpu / run_tt: lower-reductions'
  /// combine program or materialise's second (`combine = "k_combine"`); empty for none.
  std::string combine = {};
  /// Whether DST holds fp32 tiles (ArchSpec::dst_tiles), decided once by select-tile-ops or
  /// block-matmul (`dst_fp32 = true`); absent before, and then lower::tt::dst_fp32 reads fp32_acc.
  std::optional<bool> dst_fp32 = {};
  /// On the CPU, the materialised value this program stores in the packed form the next
  /// program's gemm reads (lower-gemm's decision, lower-elementwise stores it so:
  /// `cpu_packed_a = "mlp_h"`); empty for none.
  std::string cpu_packed_a = {};
  /// The kernel's grouped indices (to-tile-ir), in the order the kernel writes them.
  std::vector<GroupedDim> grouped_dims = {};
  /// The rows of tiles on TT (select-tile-ops), in the order it meets them.
  std::vector<RowOfTiles> rows = {};
  /// The program's options (to-tile-ir on); absent on hand-built programs, which take the
  /// defaults (lower::tt::options).
  std::optional<Options> options = {};
  /// choose-blocks' decision for a blocked matmul (choose-blocks on).
  std::optional<Blocking> blocking = {};
  /// materialise's decision (materialise on).
  std::optional<Materialise> materialise = {};
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
