// The FPU's compute calls: what reaches DST through the unpacker (the checks of every unpack, the
// values it delivers from bf16, fp32, bfp8_b and bfp4_b pages, TF32 through SrcA/SrcB) and the
// matrix engine's ops on it: copy_tile, transpose_wh_tile, the broadcasts, add/sub/mul_tiles,
// matmul_tiles/matmul_block and reduce_tile; each checked on DST and timed. Without the arithmetic
// (TK_EMULATOR_MATH=off) only the checks and the timing run. The DST protocol and the packer are
// compute.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "bfp4.hpp"
#include "bfp8.hpp"
#include "compute_ctx.hpp"
#include "state.hpp"
#include "tk_emulator/emulator.hpp"
#include "tk_emulator/timing_params.hpp"

namespace tk::rt::emu {
using namespace compute_detail;

namespace {
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

// What the unpacker fetches for a call's operand (timing_params.hpp, fetched_faces).
timing::Unpacked whole(const Compute& c, std::uint32_t cb) {
  return {timing::Fetch::Tile, static_cast<double>(c.core.cbs[cb].page_size)};
}
timing::Fetch fetch_of(Bcast b) {
  return b == Bcast::Row      ? timing::Fetch::Row
         : b == Bcast::Col    ? timing::Fetch::Col
         : b == Bcast::Scalar ? timing::Fetch::Scalar
                              : timing::Fetch::Tile;
}
} // namespace

void transpose_wh_tile(std::uint32_t cb, std::uint32_t tile, std::uint32_t idst) {
  Compute c = ctx("transpose_wh_tile");
  Tile& d = dst_tile(c, "transpose_wh_tile", idst);
  const std::uint8_t* pa = unpack_page(c, "transpose_wh_tile", cb, tile, Path::SrcReg, Src::A);
  if (math_on()) {
    const Tile a = load(c, cb, pa);
    const auto& fi = face_index();
    for (int r = 0; r < 32; ++r)
      for (int col = 0; col < 32; ++col)
        d[fi[r * 32 + col]] = a[fi[col * 32 + r]];
    store(c, d);
  }
  timing::fpu_call(c.f, timing::TileOp::Copy, "transpose", whole(c, cb));
}

void copy_tile(std::uint32_t cb, std::uint32_t tile, std::uint32_t idst) {
  Compute c = ctx("copy_tile");
  Tile& d = dst_tile(c, "copy_tile", idst);
  const std::uint8_t* page = unpack_page(c, "copy_tile", cb, tile, Path::ToDest, Src::A);
  if (math_on()) {
    d = load(c, cb, page);
    store(c, d);
  }
  timing::fpu_call(c.f, timing::TileOp::Copy, "copy", whole(c, cb), {},
                   unpacks_to_dest_fp32(c, cb));
}

// The SDK's unary_bcast (bcast.h) takes a 32-bit format through unpack-to-dest (A2D), since "SrcB
// is only 19bits wide", and any other through SrcB (B2D); the datacopy is timed as a copy.
void unary_bcast(Bcast bcast, std::uint32_t cb, std::uint32_t tile, std::uint32_t idst) {
  Compute c = ctx("unary_bcast");
  Tile& d = dst_tile(c, "unary_bcast", idst);
  const Path path = unpacks_to_dest_fp32(c, cb) ? Path::ToDest : Path::SrcReg;
  const std::uint8_t* page = unpack_page(c, "unary_bcast", cb, tile, path, Src::A);
  if (math_on()) {
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
  // Through SrcB (unpacker 1) or to DST (unpacker 0): one unpacker either way.
  timing::fpu_call(c.f, timing::TileOp::Copy, kCounters[static_cast<int>(bcast)],
                   {fetch_of(bcast), static_cast<double>(c.core.cbs[cb].page_size)}, {},
                   path == Path::ToDest);
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
  if (math_on()) {
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
  timing::fpu_call(c.f, op == Binary::Mul ? timing::TileOp::Mul : timing::TileOp::AddSub,
                   kCounters[static_cast<int>(op)][static_cast<int>(bcast)], whole(c, cb0),
                   {fetch_of(bcast), static_cast<double>(c.core.cbs[cb1].page_size)});
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
  if (math_on())
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
  if (math_on()) {
    // The scaler tile carries the scale factor in every element of its first row per face (the
    // SDK's generate_reduce_scaler); element (0,0) is read.
    reduce_math(pool, dim, d, load(c, cb, pa), load(c, cb_scaler, ps)[0]);
    store(c, d);
  }
  const bool is_max = pool == 2, is_min = pool == 3;
  static constexpr const char* kNames[] = {"reduce_sum", "reduce_avg", "reduce_max", "reduce_min"};
  timing::fpu_call(c.f, is_max || is_min ? timing::TileOp::ReduceMax : timing::TileOp::ReduceSum,
                   kNames[pool & 3], whole(c, cb),
                   {timing::Fetch::Scalar, static_cast<double>(c.core.cbs[cb_scaler].page_size)});
}

} // namespace tk::rt::emu
