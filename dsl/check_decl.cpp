// The checker's declaration part: `@options(...)`, parameters and their dimensions, and the small
// helpers (suggestions, shape keys) the other checker files share.
#include "dsl/check_internal.hpp"

#include "arch/arch.hpp"

#include <algorithm>
#include <array>
#include <numeric>

namespace tk::dsl::detail {

std::string DimKey::str() const {
  switch (kind) {
  case Kind::named:
    return name;
  case Kind::literal:
    return std::to_string(size);
  case Kind::unknown:
    break;
  }
  return "?";
}

DimKey DimKey::of(const Dim& d, const std::string& tensor) {
  DimKey k;
  k.where = d.loc.range;
  k.tensor = tensor;
  if (d.name) {
    k.kind = Kind::named;
    k.name = d.name->name;
  } else if (d.size == 1 || (d.size > 0 && d.size % 32 == 0)) {
    k.kind = Kind::literal;
    k.size = d.size;
  }
  return k;
}

bool provably_differ(const DimKey& a, const DimKey& b) {
  if (!a.known() || !b.known())
    return false;
  if (a.kind == b.kind)
    return a.kind == DimKey::Kind::named ? a.name != b.name : a.size != b.size;
  // A named dimension against a literal: only a vector (1) is certainly different.
  return a.is_vector() || b.is_vector();
}

DimKey merge(const DimKey& a, const DimKey& b) {
  if (!a.known())
    return b;
  if (!b.known() || a == b)
    return a;
  return {};
}

std::string SymBound::str() const {
  return dim.empty() ? std::to_string(value) : batch ? dim : "tiles(" + dim + ")";
}

std::string LoopInfo::range_str() const {
  if (outer) {
    const std::int64_t c = outer_offset;
    return lo.str() + " .. " + outer->lv->var.name +
           (c == 0  ? std::string()
            : c > 0 ? " + " + std::to_string(c)
                    : " - " + std::to_string(-c));
  }
  if (lo == SymBound{} && !hi.dim.empty() && !hi.batch)
    return hi.str();
  return lo.str() + " .. " + hi.str();
}

namespace {

constexpr std::array<const char*, 8> kOptionKeys = {"grid",          "cb_depth",       "fp32_acc",
                                                    "math_fidelity", "matmul_block",   "arch",
                                                    "q_chunk",       "exp_approx_mode"};
constexpr std::array<const char*, 4> kFidelities = {"LoFi", "HiFi2", "HiFi3", "HiFi4"};
constexpr std::int64_t kMaxCbDepth = 8;
// A chunk's rows of tiles share one row CB of 64 pages (docs/lowering.md, "Rows of tiles"), so
// q_chunk * D / 32 <= 64: 16 rows at D = 128.
constexpr std::int64_t kMaxQChunk = 16;

std::string kind_of(const Option& o) {
  switch (o.value.index()) {
  case 0:
    return "an integer";
  case 1:
    return "a boolean";
  case 2:
    return "the word '" + std::get<std::string>(o.value) + "'";
  default:
    return "a grid";
  }
}

} // namespace

void Checker::check_options() {
  std::map<std::string, SourceRange> seen;
  // The grid's bounds are those of the kernel's architecture (@options(arch = ...)), else the
  // default's.
  const arch::ArchSpec* karch = &arch::default_arch();
  for (const Option& o : k_.options)
    if (const auto* v = std::get_if<std::string>(&o.value); v && o.key.name == "arch")
      if (const arch::ArchSpec* a = arch::find(*v))
        karch = a;
  for (const Option& o : k_.options) {
    const std::string& key = o.key.name;
    SourceRange kr = o.key.loc.range, vr = o.value_loc.range;
    if (std::find(kOptionKeys.begin(), kOptionKeys.end(), key) == kOptionKeys.end()) {
      std::string hint = closest(key, {kOptionKeys.begin(), kOptionKeys.end()});
      error(kr, "unknown option '" + key + "'; " +
                    (hint.empty() ? "the options are grid, cb_depth, fp32_acc, math_fidelity, "
                                    "matmul_block, arch, q_chunk and exp_approx_mode"
                                  : "did you mean '" + hint + "'?"));
      continue;
    }
    if (auto [it, fresh] = seen.emplace(key, kr); !fresh) {
      error(kr, "option '" + key + "' is given twice").note(it->second, "first given here");
      continue;
    }
    if (key == "grid") {
      const auto* g = std::get_if<GridValue>(&o.value);
      if (!g) {
        error(vr, "option 'grid' takes a core grid such as 8x8, not " + kind_of(o));
      } else if (const arch::ArchSpec& a = *karch;
                 g->x < 1 || g->y < 1 || g->x > a.grid_x || g->y > a.grid_y) {
        error(vr, "grid " + std::to_string(g->x) + "x" + std::to_string(g->y) +
                      " is out of range; " + arch::grid_sides(a, " must be") + " (the default is " +
                      arch::grid_text(a) + ")");
      }
    } else if (key == "cb_depth") {
      const auto* v = std::get_if<std::int64_t>(&o.value);
      if (!v)
        error(vr,
              "option 'cb_depth' takes an integer (tiles per circular buffer), not " + kind_of(o));
      else if (*v < 1)
        error(vr, "cb_depth must be at least 1 (2, the default, double-buffers)");
      else if (*v > kMaxCbDepth)
        error(vr, "cb_depth " + std::to_string(*v) + " is too deep; the limit is 8 tiles");
    } else if (key == "q_chunk") {
      const auto* v = std::get_if<std::int64_t>(&o.value);
      if (!v)
        error(vr, "option 'q_chunk' takes an integer (query tile rows per work item), not " +
                      kind_of(o));
      else if (*v < 1)
        error(vr, "q_chunk must be at least 1 (1 is one query tile row per work item; without "
                  "the option the host chooses)");
      else if (*v > kMaxQChunk)
        error(vr, "q_chunk " + std::to_string(*v) + " is too large; the limit is " +
                      std::to_string(kMaxQChunk) + " tile rows");
    } else if (key == "matmul_block") {
      const auto* g = std::get_if<GridValue>(&o.value);
      if (!g)
        error(vr, "option 'matmul_block' takes a block of output tiles such as 4x4 (rows x "
                  "columns), not " +
                      kind_of(o));
      else if (g->x < 2 || g->y < 2 || g->x % 2 != 0 || g->y % 2 != 0)
        error(vr, "matmul_block " + std::to_string(g->x) + "x" + std::to_string(g->y) +
                      " is not made of whole 2x2 sub-blocks; each side must be even and at least "
                      "2");
    } else if (key == "arch") {
      const auto* s = std::get_if<std::string>(&o.value);
      if (!s)
        error(vr, "option 'arch' takes an architecture (" + arch::names() + "), not " + kind_of(o));
      else if (arch::find(*s) == nullptr)
        error(vr, "unknown architecture '" + *s + "'; the known ones are " + arch::names());
    } else if (key == "fp32_acc" || key == "exp_approx_mode") {
      if (!std::holds_alternative<bool>(o.value))
        error(vr, "option '" + key + "' takes true or false, not " + kind_of(o));
    } else { // math_fidelity
      const auto* s = std::get_if<std::string>(&o.value);
      if (!s) {
        error(vr, "option 'math_fidelity' takes LoFi, HiFi2, HiFi3 or HiFi4, not " + kind_of(o));
      } else if (std::find(kFidelities.begin(), kFidelities.end(), *s) == kFidelities.end()) {
        std::string hint = closest(*s, {kFidelities.begin(), kFidelities.end()});
        error(vr, "unknown math_fidelity '" + *s + "'; " +
                      (hint.empty() ? "use LoFi, HiFi2, HiFi3 or HiFi4"
                                    : "did you mean '" + hint + "'? (LoFi, HiFi2, HiFi3, HiFi4)"));
      }
    }
  }
}

void Checker::check_params() {
  auto one = [&](const Param& p, bool output) {
    const std::string& n = p.name.name;
    if (auto it = params_.find(n); it != params_.end()) {
      error(p.name.loc.range, "duplicate parameter '" + n + "'; give each parameter its own name")
          .note(decl_of(*it->second), "'" + n + "' is first declared here");
      bad_params_[n] = true; // uses of the name are ambiguous; check none of them
      return;
    }
    params_[n] = &p;
    Binding b;
    b.param = &p;
    b.where = decl_of(p);
    b.is_output = output;
    if (!p.is_tensor) {
      b.kind = Binding::Kind::scalar;
      scopes_.front()[n] = b;
      if (output) {
        // What works for a single value: a one-tile vector whose element (0, 0) holds it.
        error(p.loc.range, "output '" + n +
                               "' is a scalar, but outputs are tensors stored a tile at a time; "
                               "for a single value, declare a one-tile vector such as '" +
                               n +
                               ": f32[1, 32]' and store, after the 'parallel', a tile whose "
                               "element (0, 0) holds it, e.g. '" +
                               n + "[0, 0] = rowsum(colsum(s))' with 's += x[i, j]' inside");
        bad_params_[n] = true;
      } else if (p.dtype != DType::f32) {
        error(p.dtype_loc.range,
              "scalar parameter '" + n + "' must be f32; scalars are passed as 32-bit floats");
      }
      return;
    }
    b.kind = Binding::Kind::tensor;
    scopes_.front()[n] = b;
    if (p.dims.size() != 2 && p.dims.size() != 3) {
      auto text = [](const Dim& d) { return d.name ? d.name->name : std::to_string(d.size); };
      std::string dt(to_string(p.dtype));
      std::string msg = "tensor '" + n + "' has " + std::to_string(p.dims.size()) + " dimension" +
                        (p.dims.size() == 1 ? "" : "s") +
                        ", but tensors have rank 2 (rows and columns) or 3 (a batch of matrices)";
      std::size_t r = p.dims.size();
      if (r == 1)
        msg += ": a vector is '" + n + ": " + dt + "[1, " + text(p.dims[0]) + "]' (a row) or '" +
               n + ": " + dt + "[" + text(p.dims[0]) + ", 1]' (a column)";
      else if (r > 3)
        msg += "; fold the leading dimensions into one batch dimension, e.g. '" + n + ": " + dt +
               "[B, " + text(p.dims[r - 2]) + ", " + text(p.dims[r - 1]) +
               "]' with B the product of the other sizes";
      else
        msg += ", e.g. '" + n + ": " + dt + "[M, N]'";
      error(p.loc.range, msg);
      bad_params_[n] = true;
      // Its dimension names still exist: tiles(B) is not a second mistake.
      for (const Dim& d : p.dims)
        if (d.name)
          dims_.emplace(d.name->name, d.name->loc.range);
      return;
    }
    bool all_one = true;
    for (std::size_t i = 0; i < p.dims.size(); ++i) {
      const Dim& d = p.dims[i];
      bool batch = is_batch_dim(p, i);
      if (d.name) {
        const std::string& dn = d.name->name;
        dims_.emplace(dn, d.name->loc.range);
        auto [use, fresh] = dim_use_.emplace(dn, DimUse{batch, d.name->loc.range, n});
        if (!fresh && use->second.batch != batch) {
          std::string first =
              use->second.batch ? "the batch dimension" : "a row or column dimension";
          error(d.name->loc.range,
                "dimension '" + dn + "' is " + first + " of '" + use->second.tensor +
                    "', but here it is " +
                    (batch ? "a batch dimension (counted in matrices)"
                           : "a row or column dimension (counted in tiles)") +
                    "; a dimension name is either a batch or a tiled dimension, so give this "
                    "one its own name")
              .note(use->second.where, "'" + dn + "' is first declared here");
          bad_params_[n] = true;
        }
        if (!batch)
          all_one = false;
        continue;
      }
      if (batch) { // any positive number of matrices
        if (d.size < 1) {
          error(d.loc.range, "batch dimension 0 of '" + n +
                                 "' holds no matrix; a batch holds at least one (1 for a single "
                                 "matrix shared by every batch)");
          bad_params_[n] = true;
        }
        continue;
      }
      all_one = all_one && d.size == 1;
      if (d.size == 1 || (d.size > 0 && d.size % 32 == 0))
        continue;
      std::int64_t lo = d.size / 32 * 32, hi = lo + 32;
      std::string fix = lo > 0 ? std::to_string(lo) + " or " + std::to_string(hi) : "32";
      error(d.loc.range, "dimension " + std::to_string(d.size) + " of '" + n +
                             "' is not a multiple of 32; tiles are 32x32, so use " + fix +
                             " (or exactly 1 for a vector)");
      bad_params_[n] = true;
    }
    if (all_one && p.dims.size() == 3) {
      error(p.loc.range,
            "tensor '" + n +
                "' holds a single element per matrix, but tensors are read and "
                "stored a tile at a time; declare one-tile vectors such as '" +
                n + ": " + std::string(to_string(p.dtype)) + "[" +
                (p.dims[0].name ? p.dims[0].name->name : std::to_string(p.dims[0].size)) +
                ", 1, 32]' and use element (0, 0) of each");
      bad_params_[n] = true;
    } else if (all_one) {
      if (output) // a scalar output is no alternative: say what works
        error(p.loc.range, "output '" + n +
                               "' is a single element, but outputs are stored a tile at a time; "
                               "declare a one-tile vector such as '" +
                               n + ": " + std::string(to_string(p.dtype)) +
                               "[1, 32]' and store, after the 'parallel', a tile whose element "
                               "(0, 0) holds the value, e.g. '" +
                               n + "[0, 0] = rowsum(colsum(s))' with 's += x[i, j]' inside");
      else
        error(p.loc.range,
              "tensor '" + n + "' is a single element; pass it as a scalar: '" + n + ": f32'");
      bad_params_[n] = true;
    }
  };
  for (const Param& p : k_.inputs)
    one(p, false);
  for (const Param& p : k_.outputs)
    one(p, true);
  if (k_.outputs.empty())
    error(k_.name.loc.range,
          "kernel '" + k_.name.name + "' has no outputs; declare at least one: -> (C: bf16[M, N])");
}

} // namespace tk::dsl::detail

namespace tk::dsl {

KernelOptions options_of(const Kernel& k, std::string_view arch_override) {
  KernelOptions r;
  for (const Option& o : k.options)
    if (o.key.name == "arch")
      if (const auto* v = std::get_if<std::string>(&o.value); v && arch::find(*v))
        r.arch = *v;
  if (!arch_override.empty())
    r.arch = std::string(arch_override);
  const arch::ArchSpec* a = arch::find(r.arch);
  r.grid_x = (a ? *a : arch::default_arch()).grid_x;
  r.grid_y = (a ? *a : arch::default_arch()).grid_y;
  for (const Option& o : k.options) {
    if (o.key.name == "grid")
      if (const auto* g = std::get_if<GridValue>(&o.value)) {
        r.grid_x = g->x;
        r.grid_y = g->y;
      }
    if (o.key.name == "cb_depth")
      if (const auto* v = std::get_if<std::int64_t>(&o.value))
        r.cb_depth = *v;
    if (o.key.name == "q_chunk")
      if (const auto* v = std::get_if<std::int64_t>(&o.value))
        r.q_chunk = *v;
    if (o.key.name == "fp32_acc")
      if (const auto* v = std::get_if<bool>(&o.value))
        r.fp32_acc = *v;
    if (o.key.name == "math_fidelity")
      if (const auto* v = std::get_if<std::string>(&o.value))
        r.math_fidelity = *v;
    if (o.key.name == "exp_approx_mode")
      if (const auto* v = std::get_if<bool>(&o.value))
        r.exp_approx_mode = *v;
    if (o.key.name == "matmul_block")
      if (const auto* g = std::get_if<GridValue>(&o.value)) {
        r.matmul_rows = g->x;
        r.matmul_cols = g->y;
      }
  }
  return r;
}

} // namespace tk::dsl
