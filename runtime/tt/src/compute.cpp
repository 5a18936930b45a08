// Compute-kernel entry points: the DST register file and its acquire/commit/wait/release protocol,
// the unpacker's and packer's configured data formats, and the numerics of unpack
// (bf16/fp32/bfp8_b/bfp4_b pages, TF32 through SrcA/SrcB), FPU ops, matmul, reduce and pack; and
// the switch that skips that arithmetic (TK_EMULATOR_MATH=off, set_math) while every check and
// timing hook still runs. The SFPU's ops on DST are compute_sfpu.cpp; the context both use is
// compute_ctx.hpp.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "bfp4.hpp"
#include "bfp8.hpp"
#include "compute_ctx.hpp"
#include "state.hpp"
#include "tk_emulator/emulator.hpp"
#include "tk_emulator/timing_params.hpp"

namespace tk::rt::emu {
using namespace compute_detail;
namespace {
std::optional<bool> g_math_forced; // set_math; nullopt: the environment decides
bool g_math = true;                // for the launch that runs (begin_math_launch)
} // namespace

void set_math(std::optional<bool> on) {
  g_math_forced = on;
}
bool math_enabled() {
  if (g_math_forced)
    return *g_math_forced;
  const char* v = std::getenv("TK_EMULATOR_MATH");
  if (v == nullptr || *v == '\0')
    return true;
  const std::string s = v;
  if (s == "on" || s == "1")
    return true;
  if (s == "off" || s == "0")
    return false;
  throw EmulatorError("TK_EMULATOR_MATH=" + s + ": expected on or off");
}
void begin_math_launch() {
  g_math = math_enabled();
}

namespace {
float bits_float(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
std::uint32_t float_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
std::uint16_t to_bf16_rne(float f) {
  const std::uint32_t b = float_bits(f);
  if ((b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu))
    return static_cast<std::uint16_t>((b >> 16) | 0x40);
  return static_cast<std::uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}
float round_bf16(float f) {
  return bits_float(static_cast<std::uint32_t>(to_bf16_rne(f)) << 16);
}
float tf32(float f) {
  return bits_float(float_bits(f) & 0xffffe000u);
} // 10 mantissa bits kept

// Offset of element (r, c) of a tile in its four-face layout.
const std::array<std::uint16_t, 1024>& face_index() {
  static const std::array<std::uint16_t, 1024> table = [] {
    std::array<std::uint16_t, 1024> t{};
    for (int r = 0; r < 32; ++r)
      for (int c = 0; c < 32; ++c)
        t[r * 32 + c] =
            static_cast<std::uint16_t>(((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16);
    return t;
  }();
  return table;
}

const char* format_name(tt::DataFormat f) {
  switch (f) {
  case tt::DataFormat::Float32:
    return "Float32";
  case tt::DataFormat::Float16_b:
    return "Float16_b";
  case tt::DataFormat::Bfp8_b:
    return "Bfp8_b";
  case tt::DataFormat::Bfp4_b:
    return "Bfp4_b";
  case tt::DataFormat::Invalid:
    return "Invalid";
  default:
    return "another format";
  }
}

// Which unpacker a CB operand goes through (the SDK's llk_unpack_AB order: an op's first CB is
// unpacker A, its second B; matmul_tiles(in0, in1) unpacks in1 through A and in0 through B, as
// mm_init configures them).
enum class Src { A, B };
void check_format(const Compute& c, const char* op, std::uint32_t cb, Src src) {
  const CbState& s = c.core.cbs[cb];
  const tt::DataFormat want = src == Src::A ? c.dst.srca : c.dst.srcb;
  const char* which = src == Src::A ? "srcA" : "srcB";
  if (want == tt::DataFormat::Invalid)
    fail(std::string(op) + ": the unpacker's " + which +
         " format is not configured; call compute_kernel_hw_startup (or mm_init, "
         "binary_op_init_common) before the first operation");
  if (s.format != want) {
    const std::uint32_t from = src == Src::A ? c.dst.srca_cb : c.dst.srcb_cb;
    fail(std::string(op) + ": " + cb_name(cb) + " holds " + format_name(s.format) +
         " tiles, but the unpacker's " + which + " is configured for " + format_name(want) +
         " (from " + cb_name(from) + "); call reconfig_data_format" +
         (src == Src::A ? "_srca" : "_srcb") + "(" + cb_name(from) + ", " + cb_name(cb) +
         ") first");
  }
}

bool unpacks_to_dest_fp32(const Compute& c, std::uint32_t cb) {
  return cb < c.cc.unpack_to_dest_mode.size() &&
         c.cc.unpack_to_dest_mode[cb] == UnpackToDestMode::UnpackToDestFp32;
}

enum class Path { SrcReg, ToDest };
// Every check of an unpack of tile `tile` of `cb`; returns its page in L1.
const std::uint8_t* unpack_page(const Compute& c, const char* op, std::uint32_t cb,
                                std::uint32_t tile, Path path, Src src) {
  if (!cb_in_range(active_device().arch, cb))
    fail(std::string(op) + ": " + cb_out_of_range(active_device().arch, cb));
  const CbState& s = c.core.cbs[cb];
  if (!s.configured)
    fail(std::string(op) + ": " + cb_name(cb) + " is not configured on this core");
  // With the watcher off the unpacker reads the page at the CB's read pointer, as on the chip.
  if (tile >= s.waited) {
    violation(std::string(op) + " " + cb_name(cb),
              std::string(op) + ": reads tile " + std::to_string(tile) + " of " + cb_name(cb) +
                  " but only " + std::to_string(s.waited) +
                  (s.waited == 1 ? " page was" : " pages were") + " waited for with cb_wait_front");
  }
  if (s.rd_page + tile >= s.num_pages)
    fail(std::string(op) + ": tile " + std::to_string(tile) + " of " + cb_name(cb) +
         " lies past the end of the CB");
  check_format(c, op, cb, src);
  if (s.format == tt::DataFormat::Float16_b) {
    if (s.page_size < 2048)
      fail(std::string(op) + ": " + cb_name(cb) + " pages hold less than a bf16 tile");
  } else if (s.format == tt::DataFormat::Float32) {
    if (s.page_size < 4096)
      fail(std::string(op) + ": " + cb_name(cb) + " pages hold less than an fp32 tile");
    if (unpacks_to_dest_fp32(c, cb) && path == Path::SrcReg)
      fail(std::string(op) + ": " + cb_name(cb) +
           " is unpacked to DST (UnpackToDestMode::UnpackToDestFp32), so it cannot feed SrcA/SrcB; "
           "only copy_tile reads it");
  } else if (s.format == tt::DataFormat::Bfp8_b) {
    if (s.page_size < bfp8::kTileBytes)
      fail(std::string(op) + ": " + cb_name(cb) + " pages hold less than a bfp8_b tile");
  } else if (s.format == tt::DataFormat::Bfp4_b) {
    if (s.page_size < bfp4::kTileBytes)
      fail(std::string(op) + ": " + cb_name(cb) + " pages hold less than a bfp4_b tile");
  } else {
    fail(std::string(op) + ": " + cb_name(cb) + " has data format " +
         std::to_string(static_cast<int>(s.format)) +
         "; the emulator computes on Float16_b, Float32, Bfp8_b and Bfp4_b tiles");
  }
  return c.core.l1 + s.address + (s.rd_page + tile) * s.page_size;
}

// The values the unpacker delivers from `page` (checked by unpack_page) of `cb`. Only called with
// the arithmetic on.
Tile load(const Compute& c, std::uint32_t cb, const std::uint8_t* page) {
  Tile t{};
  const tt::DataFormat format = c.core.cbs[cb].format;
  if (format == tt::DataFormat::Float16_b) {
    for (int i = 0; i < 1024; ++i) {
      std::uint16_t v;
      std::memcpy(&v, page + 2 * i, 2);
      t[i] = bits_float(static_cast<std::uint32_t>(v) << 16);
    }
  } else if (format == tt::DataFormat::Float32) {
    std::memcpy(t.data(), page, 4096);
    if (!unpacks_to_dest_fp32(c, cb)) {
      for (float& v : t)
        v = tf32(v);
    }
  } else if (format == tt::DataFormat::Bfp8_b) {
    // Every bfp8_b value is exact in the source registers (7 bits of magnitude at most).
    t = bfp8::decode_tile(page);
  } else { // Bfp4_b (unpack_page rejects the rest); 3 bits of magnitude, exact too
    t = bfp4::decode_tile(page);
  }
  return t;
}
} // namespace

namespace compute_detail {
bool math_on() {
  return g_math;
}

Compute ctx(const char* op) {
  Fiber& f = current();
  if (!f.kernel->compute)
    fail(std::string(op) + " is a compute API but runs in a data-movement kernel");
  return {f, *f.core, f.kernel->cc, f.core->dst};
}
std::uint32_t capacity(const ComputeConfig& cc) {
  return active_device().arch.dst_tiles(cc.fp32_dest_acc_en, cc.dst_full_sync_en);
}

Tile& dst_tile(const Compute& c, const char* op, std::uint32_t idst) {
  if (!c.dst.math)
    fail(std::string(op) + ": DST is used outside tile_regs_acquire ... tile_regs_commit");
  const std::uint32_t cap = capacity(c.cc);
  if (idst >= cap) {
    fail(std::string(op) + ": DST index " + std::to_string(idst) + " is out of range: " +
         std::to_string(cap) + " tiles fit in DST (" + (c.cc.fp32_dest_acc_en ? "fp32" : "bf16") +
         ", " + (c.cc.dst_full_sync_en ? "full-sync" : "half-sync") + ")");
  }
  return c.dst.tiles[idst];
}

// Values written to a 16-bit DST keep bf16 precision.
void store(const Compute& c, Tile& t) {
  if (c.cc.fp32_dest_acc_en || !g_math)
    return;
  for (float& v : t)
    v = round_bf16(v);
}
} // namespace compute_detail

void tile_regs_acquire() {
  Compute c = ctx("tile_regs_acquire");
  if (c.dst.math || c.dst.committed || c.dst.pack)
    fail("tile_regs_acquire: DST is already acquired (missing tile_regs_release?)");
  timing::dst_acquire(c.f);
  // The packer zeroes each DST half after packing it (tt-llk _llk_pack_dest_section_done_: ZEROACC
  // CLR_HALF), so a freshly acquired DST reads as zero on silicon too; matmul accumulation relies
  // on it.
  if (g_math) {
    for (std::uint32_t i = 0; i < capacity(c.cc); ++i)
      c.dst.tiles[i].fill(0.0f);
  }
  c.dst.math = true;
}
void tile_regs_commit() {
  Compute c = ctx("tile_regs_commit");
  if (!c.dst.math)
    fail("tile_regs_commit: DST was not acquired with tile_regs_acquire");
  c.dst.math = false;
  c.dst.committed = true;
  timing::dst_commit(c.f);
}
void tile_regs_wait() {
  Compute c = ctx("tile_regs_wait");
  if (!c.dst.committed)
    fail("tile_regs_wait: DST was not committed with tile_regs_commit");
  c.dst.pack = true;
  timing::dst_wait(c.f);
}
void tile_regs_release() {
  Compute c = ctx("tile_regs_release");
  if (!c.dst.pack)
    fail("tile_regs_release: DST was not waited for with tile_regs_wait");
  c.dst.pack = c.dst.committed = c.dst.math = false;
  timing::dst_release(c.f);
}
void acquire_dst() {
  if (const Compute c = ctx("acquire_dst"); c.dst.math || c.dst.committed || c.dst.pack)
    fail("acquire_dst: DST is already acquired (missing release_dst?)");
  tile_regs_acquire();
  Compute c = ctx("acquire_dst");
  c.dst.pack = true; // acquire_dst = acquire + wait: MATH and PACK may both touch DST
}
void release_dst() {
  Compute c = ctx("release_dst");
  if (!c.dst.math) {
    // release_dst is MATH's llk_math_dest_section_done then PACK's llk_pack_dest_section_done
    // (api/compute/reg_api.h): a post and a get of the same math-pack semaphore, which leave it as
    // it was, and a section the packer zeroes, which the next acquire finds zero anyway. So with
    // the watcher off it frees DST and costs what it did.
    violation("release_dst", "release_dst: DST was not acquired with acquire_dst");
  }
  c.dst.pack = c.dst.committed = c.dst.math = false;
  timing::dst_release(c.f);
}

void binary_init(bool acc_to_dest) {
  Compute c = ctx("binary op init");
  c.dst.acc_to_dest = acc_to_dest;
  timing::init_call(c.f);
}

void matmul_init(bool transpose) {
  Compute c = ctx("mm_init");
  c.dst.mm_transpose = transpose;
  timing::init_call(c.f);
}

void init_call() {
  timing::init_call(ctx("init").f);
}

void not_modelled(const char* what) {
  fail(std::string(what) + " is not modelled by the emulator");
}

bool matmul_transposed() {
  return ctx("matmul_tiles").dst.mm_transpose;
}

void transpose_wh_tile(std::uint32_t cb, std::uint32_t tile, std::uint32_t idst) {
  Compute c = ctx("transpose_wh_tile");
  Tile& d = dst_tile(c, "transpose_wh_tile", idst);
  const std::uint8_t* pa = unpack_page(c, "transpose_wh_tile", cb, tile, Path::SrcReg, Src::A);
  if (g_math) {
    const Tile a = load(c, cb, pa);
    const auto& fi = face_index();
    for (int r = 0; r < 32; ++r)
      for (int col = 0; col < 32; ++col)
        d[fi[r * 32 + col]] = a[fi[col * 32 + r]];
    store(c, d);
  }
  timing::tile_op(c.f, timing::TileOp::Copy, "transpose");
}

void copy_tile(std::uint32_t cb, std::uint32_t tile, std::uint32_t idst) {
  Compute c = ctx("copy_tile");
  Tile& d = dst_tile(c, "copy_tile", idst);
  const std::uint8_t* page = unpack_page(c, "copy_tile", cb, tile, Path::ToDest, Src::A);
  if (g_math) {
    d = load(c, cb, page);
    store(c, d);
  }
  timing::tile_op(c.f, timing::TileOp::Copy, "copy");
}

// The SDK's unary_bcast (bcast.h) takes a 32-bit format through unpack-to-dest (A2D), since "SrcB
// is only 19bits wide", and any other through SrcB (B2D); the datacopy is timed as a copy.
void unary_bcast(Bcast bcast, std::uint32_t cb, std::uint32_t tile, std::uint32_t idst) {
  Compute c = ctx("unary_bcast");
  Tile& d = dst_tile(c, "unary_bcast", idst);
  const Path path = unpacks_to_dest_fp32(c, cb) ? Path::ToDest : Path::SrcReg;
  const std::uint8_t* page = unpack_page(c, "unary_bcast", cb, tile, path, Src::A);
  if (g_math) {
    const Tile a = load(c, cb, page);
    const auto& fi = face_index();
    for (int r = 0; r < 32; ++r)
      for (int col = 0; col < 32; ++col)
        d[fi[r * 32 + col]] = bcast == Bcast::Row      ? a[fi[col]]
                              : bcast == Bcast::Col    ? a[fi[r * 32]]
                              : bcast == Bcast::Scalar ? a[0]
                                                       : a[fi[r * 32 + col]];
    store(c, d);
  }
  static constexpr const char* kCounters[4] = {"copy", "bcast_row", "bcast_col", "bcast_scalar"};
  timing::tile_op(c.f, timing::TileOp::Copy, kCounters[static_cast<int>(bcast)]);
}

void binary_tiles(Binary op, Bcast bcast, std::uint32_t cb0, std::uint32_t cb1, std::uint32_t tile0,
                  std::uint32_t tile1, std::uint32_t idst) {
  const char* name = op == Binary::Add   ? "add_tiles"
                     : op == Binary::Sub ? "sub_tiles"
                                         : "mul_tiles";
  Compute c = ctx(name);
  Tile& d = dst_tile(c, name, idst);
  const std::uint8_t* pa = unpack_page(c, name, cb0, tile0, Path::SrcReg, Src::A);
  const std::uint8_t* pb = unpack_page(c, name, cb1, tile1, Path::SrcReg, Src::B);
  if (g_math) {
    const Tile a = load(c, cb0, pa);
    const Tile b = load(c, cb1, pb);
    const auto& fi = face_index();
    for (int r = 0; r < 32; ++r) {
      for (int col = 0; col < 32; ++col) {
        const int i = fi[r * 32 + col];
        const float bv = bcast == Bcast::None  ? b[i]
                         : bcast == Bcast::Row ? b[fi[col]]
                         : bcast == Bcast::Col ? b[fi[r * 32]]
                                               : b[0];
        float v = op == Binary::Add ? a[i] + bv : op == Binary::Sub ? a[i] - bv : a[i] * bv;
        if (c.dst.acc_to_dest)
          v += d[i];
        d[i] = v;
      }
    }
    store(c, d);
  }
  static constexpr const char* kCounters[3][4] = {
      {"add", "add_bcast_row", "add_bcast_col", "add_bcast_scalar"},
      {"sub", "sub_bcast_row", "sub_bcast_col", "sub_bcast_scalar"},
      {"mul", "mul_bcast_row", "mul_bcast_col", "mul_bcast_scalar"}};
  timing::tile_op(c.f, op == Binary::Mul ? timing::TileOp::Mul : timing::TileOp::AddSub,
                  kCounters[static_cast<int>(op)][static_cast<int>(bcast)]);
}

namespace {
// DST[d] += a · b as the matrix engine computes it.
void matmul_math(const Compute& c, Tile& d, const Tile& a, const Tile& b, bool transpose);
// One tile product, DST[idst] += in0 x in1 (untimed: matmul_tiles and matmul_block time the call).
void matmul_product(const Compute& c, std::uint32_t cb0, std::uint32_t cb1, std::uint32_t tile0,
                    std::uint32_t tile1, std::uint32_t idst, bool transpose);
} // namespace

void matmul_tiles(std::uint32_t cb0, std::uint32_t cb1, std::uint32_t tile0, std::uint32_t tile1,
                  std::uint32_t idst, bool transpose) {
  Compute c = ctx("matmul_tiles");
  matmul_product(c, cb0, cb1, tile0, tile1, idst, transpose);
  timing::matmul_call(c.f, 1, 1, c.core.cbs[cb0].page_size, c.core.cbs[cb1].page_size);
}

void matmul_block(std::uint32_t cb0, std::uint32_t cb1, std::uint32_t tile0, std::uint32_t tile1,
                  std::uint32_t idst, bool transpose, std::uint32_t ct, std::uint32_t rt,
                  std::uint32_t kt) {
  Compute c = ctx("matmul_block");
  for (std::uint32_t r = 0; r < rt; ++r)
    for (std::uint32_t col = 0; col < ct; ++col)
      matmul_product(c, cb0, cb1, tile0 + r * kt, tile1 + col, idst + r * ct + col, transpose);
  timing::matmul_call(c.f, rt, ct, c.core.cbs[cb0].page_size, c.core.cbs[cb1].page_size);
}

void unpack_ab_matmul(std::uint32_t cb0, std::uint32_t cb1, std::uint32_t tile0,
                      std::uint32_t tile1, std::uint32_t kt) {
  Compute c = ctx("llk_unpack_AB_matmul");
  c.dst.unpacked = true;
  c.dst.unp_cb0 = cb0;
  c.dst.unp_cb1 = cb1;
  c.dst.unp_tile0 = tile0;
  c.dst.unp_tile1 = tile1;
  c.dst.unp_kt = kt;
}

void math_matmul(std::uint32_t dst, std::uint32_t ct, std::uint32_t rt) {
  Compute c = ctx("llk_math_matmul");
  if (!c.dst.unpacked)
    fail("llk_math_matmul: no tiles were unpacked with llk_unpack_AB_matmul");
  const DstState& d = c.dst;
  matmul_block(d.unp_cb0, d.unp_cb1, d.unp_tile0, d.unp_tile1, dst, d.mm_transpose, ct, rt,
               d.unp_kt);
}

namespace {
void matmul_product(const Compute& c, std::uint32_t cb0, std::uint32_t cb1, std::uint32_t tile0,
                    std::uint32_t tile1, std::uint32_t idst, bool transpose) {
  Tile& d = dst_tile(c, "matmul_tiles", idst);
  const std::uint8_t* pa = unpack_page(c, "matmul_tiles", cb0, tile0, Path::SrcReg, Src::B);
  const std::uint8_t* pb = unpack_page(c, "matmul_tiles", cb1, tile1, Path::SrcReg, Src::A);
  if (g_math)
    matmul_math(c, d, load(c, cb0, pa), load(c, cb1, pb), transpose);
}

void matmul_math(const Compute& c, Tile& d, const Tile& a, const Tile& b, bool transpose) {
  const auto& fi = face_index();
  float am[32][32], bm[32][32], acc[32][32];
  for (int r = 0; r < 32; ++r)
    for (int k = 0; k < 32; ++k) {
      am[r][k] = a[fi[r * 32 + k]];
      bm[k][r] = transpose ? b[fi[r * 32 + k]] : b[fi[k * 32 + r]];
      acc[r][k] = d[fi[r * 32 + k]];
    }
  // The matrix engine consumes the inner dimension one 16-wide face at a time, writing DST after
  // each.
  for (int half = 0; half < 2; ++half) {
    for (int r = 0; r < 32; ++r) {
      for (int col = 0; col < 32; ++col) {
        float s = 0.0f;
        for (int k = half * 16; k < half * 16 + 16; ++k)
          s += am[r][k] * bm[k][col];
        const float v = acc[r][col] + s;
        acc[r][col] = c.cc.fp32_dest_acc_en ? v : round_bf16(v);
      }
    }
  }
  for (int r = 0; r < 32; ++r)
    for (int col = 0; col < 32; ++col)
      d[fi[r * 32 + col]] = acc[r][col];
}
} // namespace

namespace {
// Reduces `a` into DST tile `d` (pool and dim as reduce_tile's).
void reduce_math(int pool, int dim, Tile& d, const Tile& a, float scaler) {
  const auto& fi = face_index();
  const bool is_max = pool == 2, is_min = pool == 3;
  auto combine = [&](float acc, float v) {
    return is_max ? std::max(acc, v) : is_min ? std::min(acc, v) : acc + v;
  };
  auto reduce = [&](int r0, int r1, int c0, int c1) {
    float acc = is_max ? -INFINITY : is_min ? INFINITY : 0.0f;
    for (int r = r0; r < r1; ++r)
      for (int col = c0; col < c1; ++col)
        acc = combine(acc, a[fi[r * 32 + col]]);
    return acc * (is_max || is_min ? 1.0f : scaler);
  };
  // Results accumulate into DST (SUM adds, MAX/MIN compare), so a reduction over several tiles
  // calls reduce_tile into the same DST slot.
  auto put = [&](int r, int col, float v) {
    float& slot = d[fi[r * 32 + col]];
    slot = is_max ? std::max(slot, v) : is_min ? std::min(slot, v) : slot + v;
  };
  if (dim == 0) {
    for (int r = 0; r < 32; ++r)
      put(r, 0, reduce(r, r + 1, 0, 32));
  } else if (dim == 1) {
    for (int col = 0; col < 32; ++col)
      put(0, col, reduce(0, 32, col, col + 1));
  } else {
    put(0, 0, reduce(0, 32, 0, 32));
  }
}
} // namespace

void reduce_tile(int pool, int dim, std::uint32_t cb, std::uint32_t cb_scaler, std::uint32_t tile,
                 std::uint32_t tile_scaler, std::uint32_t idst) {
  Compute c = ctx("reduce_tile");
  Tile& d = dst_tile(c, "reduce_tile", idst);
  const std::uint8_t* pa = unpack_page(c, "reduce_tile", cb, tile, Path::SrcReg, Src::A);
  const std::uint8_t* ps =
      unpack_page(c, "reduce_tile", cb_scaler, tile_scaler, Path::SrcReg, Src::B);
  if (g_math) {
    // The scaler tile carries the scale factor in every element of its first row per face (the
    // SDK's generate_reduce_scaler); element (0,0) is read.
    reduce_math(pool, dim, d, load(c, cb, pa), load(c, cb_scaler, ps)[0]);
    store(c, d);
  }
  const bool is_max = pool == 2, is_min = pool == 3;
  static constexpr const char* kNames[] = {"reduce_sum", "reduce_avg", "reduce_max", "reduce_min"};
  timing::tile_op(c.f, is_max || is_min ? timing::TileOp::ReduceMax : timing::TileOp::ReduceSum,
                  kNames[pool & 3]);
}

void configure_formats(std::int32_t srca_cb, std::int32_t srcb_cb, std::int32_t pack_cb,
                       const char* call) {
  Compute c = ctx(call);
  auto take = [&](std::int32_t cb, tt::DataFormat& format, std::uint32_t& from) {
    if (cb == kKeep)
      return;
    if (!cb_in_range(active_device().arch, cb))
      fail(std::string(call) + ": " + cb_out_of_range(active_device().arch, cb));
    const CbState& s = c.core.cbs[cb];
    if (!s.configured)
      fail(std::string(call) + ": " + cb_name(cb) + " is not configured on this core");
    format = s.format;
    from = static_cast<std::uint32_t>(cb);
  };
  take(srca_cb, c.dst.srca, c.dst.srca_cb);
  take(srcb_cb, c.dst.srcb, c.dst.srcb_cb);
  take(pack_cb, c.dst.pack_format, c.dst.pack_cb);
  timing::init_call(c.f);
}

void reduce_pack_mask(int dim) {
  Compute c = ctx(dim < 0 ? "reduce_uninit" : "reduce_init");
  c.dst.pack_mask = dim;
  timing::init_call(c.f);
}

void pack_l1_acc(std::uint32_t enable) {
  Compute c = ctx("pack_reconfig_l1_acc");
  if (enable > 1)
    fail("pack_reconfig_l1_acc(" + std::to_string(enable) + "): l1_acc_en must be 0 or 1");
  c.dst.l1_acc = enable == 1;
  timing::pack_init_call(c.f);
}

namespace {
// Writes DST tile `t` into `page` in `format`, through the packer's reduce mask.
void pack_math(const Compute& c, Tile t, tt::DataFormat format, std::uint8_t* page) {
  if (c.dst.pack_mask >= 0) { // reduce_init's edge mask: zeros outside the reduction's result
    const auto& fi = face_index();
    for (int r = 0; r < 32; ++r)
      for (int col = 0; col < 32; ++col) {
        const bool keep = c.dst.pack_mask == 0   ? col == 0
                          : c.dst.pack_mask == 1 ? r == 0
                                                 : r == 0 && col == 0;
        if (!keep)
          t[fi[r * 32 + col]] = 0.0f;
      }
  }
  if (c.dst.l1_acc) { // the packer adds the tile it finds in L1 (bf16 and fp32 pages)
    for (int i = 0; i < 1024; ++i) {
      float v;
      if (format == tt::DataFormat::Float16_b) {
        std::uint16_t h;
        std::memcpy(&h, page + 2 * i, 2);
        v = bits_float(std::uint32_t{h} << 16);
      } else {
        std::memcpy(&v, page + 4 * i, 4);
      }
      t[i] += v;
    }
  }
  if (format == tt::DataFormat::Float16_b) {
    for (int i = 0; i < 1024; ++i) {
      const std::uint16_t v = to_bf16_rne(t[i]);
      std::memcpy(page + 2 * i, &v, 2);
    }
  } else if (format == tt::DataFormat::Float32) {
    std::memcpy(page, t.data(), 4096);
  } else if (format == tt::DataFormat::Bfp8_b) {
    bfp8::encode_tile_packer(t.data(), page);
  } else { // Bfp4_b (pack_tile rejects the rest)
    bfp4::encode_tile_packer(t.data(), page);
  }
}
} // namespace

void pack_tile(std::uint32_t idst, std::uint32_t cb, std::uint32_t out_tile, bool out_of_order) {
  Compute c = ctx("pack_tile");
  const std::string call = "pack_tile(" + std::to_string(idst) + ", " + cb_name(cb) + ")";
  if (!c.dst.pack)
    fail(call + ": DST is read outside tile_regs_wait ... tile_regs_release");
  const std::uint32_t cap = capacity(c.cc);
  if (idst >= cap)
    fail(call + ": DST index " + std::to_string(idst) + " is out of range: " + std::to_string(cap) +
         " tiles fit in DST");
  if (!cb_in_range(active_device().arch, cb))
    fail(call + ": " + cb_out_of_range(active_device().arch, cb));
  CbState& s = c.core.cbs[cb];
  if (!s.configured)
    fail(call + ": " + cb_name(cb) + " is not configured on this core");
  const std::uint32_t pos = out_of_order ? out_tile : s.pack_index;
  // With the watcher off the packer writes the page at the CB's write pointer, as on the chip.
  if (pos >= s.reserved) {
    violation("pack_tile " + cb_name(cb),
              call + ": packs into page " + std::to_string(pos) + " of the back of " + cb_name(cb) +
                  " but only " + std::to_string(s.reserved) +
                  (s.reserved == 1 ? " page is" : " pages are") + " reserved with cb_reserve_back");
  }
  if (s.wr_page + pos >= s.num_pages)
    fail(call + ": page " + std::to_string(pos) + " lies past the end of " + cb_name(cb));
  if (c.dst.pack_format == tt::DataFormat::Invalid)
    fail(call + ": the packer's format is not configured; call compute_kernel_hw_startup (or "
                "mm_init, binary_op_init_common) before the first operation");
  if (s.format != c.dst.pack_format)
    fail(call + ": " + cb_name(cb) + " holds " + format_name(s.format) +
         " tiles, but the packer is configured for " + format_name(c.dst.pack_format) + " (from " +
         cb_name(c.dst.pack_cb) + "); call pack_reconfig_data_format(" + cb_name(c.dst.pack_cb) +
         ", " + cb_name(cb) + ") first");
  if (!out_of_order)
    ++s.pack_index;
  if (c.dst.l1_acc && s.format != tt::DataFormat::Float16_b && s.format != tt::DataFormat::Float32)
    fail(call + ": the packer's L1 accumulation is modelled for Float16_b and Float32 pages; " +
         cb_name(cb) + " holds " + format_name(s.format));
  if (s.format == tt::DataFormat::Bfp8_b || s.format == tt::DataFormat::Bfp4_b) {
    // Without bfp8_pack_precise the packer's source format is Bfp8_b itself, for Bfp4_b outputs
    // too (tt_metal/jit_build/data_format.cpp get_single_pack_src_format), and the early
    // conversion's rounding is not documented, so it is not modelled.
    const std::string name = format_name(s.format);
    if (!c.cc.bfp8_pack_precise)
      fail(call + ": " + cb_name(cb) + " holds " + name +
           " tiles, but the kernel's ComputeConfig has bfp8_pack_precise = false; the emulator "
           "models the packer's rounding into " +
           name + " only with bfp8_pack_precise = true");
    const std::uint32_t bytes =
        s.format == tt::DataFormat::Bfp8_b ? bfp8::kTileBytes : bfp4::kTileBytes;
    if (s.page_size < bytes)
      fail(call + ": " + cb_name(cb) + " pages hold less than a " +
           (s.format == tt::DataFormat::Bfp8_b ? "bfp8_b" : "bfp4_b") + " tile");
  } else if (s.format != tt::DataFormat::Float16_b && s.format != tt::DataFormat::Float32) {
    fail(call + ": " + cb_name(cb) + " has data format " +
         std::to_string(static_cast<int>(s.format)) +
         "; the emulator packs Float16_b, Float32, Bfp8_b and Bfp4_b tiles");
  }
  if (g_math)
    pack_math(c, c.dst.tiles[idst], s.format,
              c.core.l1 + s.address + (s.wr_page + pos) * s.page_size);
  timing::tile_op(c.f, timing::TileOp::Pack, "pack", s.page_size);
}
} // namespace tk::rt::emu
