// Compute-kernel entry points: the DST register file and its acquire/commit/wait/release protocol,
// the unpacker's and packer's configured data formats, the packer's numerics (bf16, fp32, bfp8_b
// and bfp4_b pages, its reduce mask and L1 accumulation), and the switch that skips the arithmetic
// (TK_EMULATOR_MATH=off, set_math) while every check and timing hook still runs. What reaches DST
// through the unpacker and the FPU (copy, broadcast, binary ops, matmul, reduce) is
// compute_fpu.cpp; the SFPU's ops on DST are compute_sfpu.cpp; the context all use is
// compute_ctx.hpp.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

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

namespace compute_detail {
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
  // pack_reconfig_data_format is the pack thread's alone (tt-metal a8c5af0f5a26 api/compute/pack.h:
  // `PACK((llk_pack_reconfig_data_format<...>(new_cb_id)))`), as pack_reconfig_l1_acc is. A format
  // reconfiguration on its own is counted apart from the inits that reconfigure too.
  if (srca_cb == kKeep && srcb_cb == kKeep && std::string_view(call) == "pack_reconfig_data_format")
    timing::pack_init_call(c.f, "reconfig");
  else
    timing::init_call(c.f,
                      std::string_view(call).find("reconfig_data_format") != std::string_view::npos
                          ? "reconfig"
                          : "init");
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

void pack_relu(std::uint32_t config) {
  Compute c = ctx("llk_pack_relu_config");
  if ((config & 0xfu) > 1 || (config >> 16) != 0)
    not_modelled("llk_pack_relu_config with a threshold (only NO_RELU and ZERO_RELU)");
  c.dst.pack_relu = (config & 0xfu) == 1;
  timing::pack_init_call(c.f);
}

namespace {
// Writes DST tile `t` into `page` in `format`, through the packer's reduce mask and ReLU.
void pack_math(const Compute& c, Tile t, tt::DataFormat format, std::uint8_t* page) {
  // ZERO_RELU (a MIN_THRESHOLD_RELU at 0 in tt-llk): each packed value, before the L1
  // accumulation (TTNN's SDPA packs its exp row sums with both and relies on that order).
  if (c.dst.pack_relu)
    for (float& v : t)
      v = v > 0.0f ? v : 0.0f;
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
