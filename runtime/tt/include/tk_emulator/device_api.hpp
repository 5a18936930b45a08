// The emulator's device-side entry points, called by the SDK-shaped kernel headers (api/...). Each
// call acts on the core and kernel that the scheduler made current. Not part of the SDK: kernels
// never call these.
#pragma once

#include <cstdint>
#include <cstring>

namespace tk::rt::emu {
// Runtime args of the current kernel on the current core.
std::uint32_t runtime_arg(int index);
/// DEVICE_PRINT's text on stdout when TT_METAL_DPRINT_CORES is set (src/device_print.cpp).
void device_print(const char* text, std::size_t size);
std::uint32_t common_runtime_arg(int index);
/// An argument word read as the kernel's 4-byte type (get_arg_val<T> in both kernel APIs).
template <typename T>
inline T arg_as(std::uint32_t word) {
  static_assert(sizeof(T) == 4, "Error: get_arg_val can only be used with 4-byte types");
  T out;
  std::memcpy(&out, &word, 4);
  return out;
}

// Circular buffers (shared by data-movement and compute kernels).
void cb_reserve_back(std::int32_t cb, std::int32_t pages);
void cb_push_back(std::int32_t cb, std::int32_t pages);
void cb_wait_front(std::int32_t cb, std::int32_t pages);
void cb_pop_front(std::int32_t cb, std::int32_t pages);
bool cb_pages_reservable_at_back(std::int32_t cb, std::int32_t pages);
bool cb_pages_available_at_front(std::int32_t cb, std::int32_t pages);
std::uint32_t cb_write_ptr(std::uint32_t cb);
std::uint32_t cb_read_ptr(std::uint32_t cb);
std::uint32_t cb_page_size(std::uint32_t cb);
// A CB's state as the SDK's LocalCBInterface holds it (internal/circular_buffer_interface.h):
// bytes and end of its ring, page size and count, read and write pointers (as get_read_ptr and
// get_write_ptr return them), cumulative pages popped and pushed (mod 2^16).
struct CbInterfaceState {
  std::uint32_t size, limit, page_size, num_pages, rd_ptr, wr_ptr, acked, received;
};
CbInterfaceState cb_interface(std::uint32_t cb);
/// The CB's DataFormat (as the SDK's unpack_src_format / pack_dst_format tables hold it).
std::uint8_t cb_data_format(std::uint32_t cb);
/// A Bfp8_b (or, with bfp4, Bfp4_b) datum's value: its code against its row's shared exponent,
/// as tt-metal's print server reads a TileSlice of one (convert_bfp_to_u32,
/// tt_metal/impl/data_format/blockfloat_common.cpp).
float bfp_value(std::uint8_t code, std::uint8_t shared_exp, bool bfp4);

// NoC. Local L1 addresses are real pointers into the current core's L1 window (below 4 GiB); NoC
// addresses carry (x, y) and a core-relative offset.
void noc_read(std::uint64_t src_noc_addr, std::uint32_t dst_local_addr, std::uint32_t size);
/// A NoC's read state (Noc::set_async_read_state): the source NoC address and the size, per
/// kernel and NoC; until set, an error on use.
struct NocReadState {
  std::uint64_t src = 0;
  std::uint32_t size = 0;
};
void noc_read_state_set(std::uint8_t noc, std::uint64_t src_noc_addr, std::uint32_t size);
NocReadState noc_read_state(std::uint8_t noc);
void noc_write(std::uint32_t src_local_addr, std::uint64_t dst_noc_addr, std::uint32_t size);
// `noc` is the NoC the write is issued on: it sets which corner the rectangle starts at.
void noc_write_multicast(std::uint32_t src_local_addr, std::uint64_t dst_mcast_addr,
                         std::uint32_t size, std::uint32_t num_dests, bool include_self,
                         std::uint8_t noc = 0);
void noc_semaphore_inc(std::uint64_t addr, std::uint32_t incr);
void semaphore_wait(volatile std::uint32_t* sem, std::uint32_t value, bool at_least);
void semaphore_set(volatile std::uint32_t* sem, std::uint32_t value);
// A barrier: 0 read, 1 write, 2 writes flushed, 3 atomic, 4 full (only timing mode waits).
void noc_barrier(int kind);
std::uint64_t noc_xy_addr(std::uint32_t noc_x, std::uint32_t noc_y, std::uint32_t addr);
std::uint64_t noc_local_addr(std::uint32_t addr);
std::uint64_t noc_multicast_addr(std::uint32_t x0, std::uint32_t y0, std::uint32_t x1,
                                 std::uint32_t y1, std::uint32_t addr);
std::uint64_t interleaved_page_addr(bool dram, std::uint32_t base, std::uint32_t aligned_page_size,
                                    std::uint32_t page_id, std::uint32_t offset);
/// Fails unless `bank` is a DRAM bank (dram) or an L1 bank (a worker core) of the device.
void check_bank_id(bool dram, std::uint32_t bank);
std::uint32_t semaphore_addr(std::uint32_t id);
/// The current kernel's core, logical (src/core_identity.cpp).
std::uint8_t logical_core_x();
std::uint8_t logical_core_y();
std::uint8_t* my_noc_x();
std::uint8_t* my_noc_y();

// Compute: DST register protocol.
void tile_regs_acquire();
void tile_regs_commit();
void tile_regs_wait();
void tile_regs_release();
void acquire_dst();
void release_dst();

enum class Binary : std::uint8_t { Add, Sub, Mul };
enum class Bcast : std::uint8_t { None, Row, Col, Scalar };
enum class Unary : std::uint8_t {
  Exp,
  Relu,
  ReluMax,
  ReluMin,
  LeakyRelu,
  Gelu,
  Recip,
  Sqrt,
  Rsqrt,
  Log,
  Sigmoid,
  Tanh,
  Abs,
  Neg,
  Square,
  Silu,
  Erf,
  Hardsigmoid,
  Exp2,
  Log1p,
  Sin,
  Cos,
  Sign,
  Floor,
  Softplus,
  Elu,
  AddScalar,
  SubScalar,
  MulScalar,
  DivScalar,
  RsubScalar,
  Fill
};
enum class DstBinary : std::uint8_t { Max, Min, Add, Sub, Mul, Eq, Ne, Lt, Gt, Le, Ge };

void binary_init(bool acc_to_dest);
/// mm_init / mm_init_short: whether the matmul_tiles that follow transpose their in1 tile.
void matmul_init(bool transpose);
/// A call whose arguments ask for behaviour the emulator does not model: an error, not a silent
/// wrong answer.
[[noreturn]] void not_modelled(const char* what);
bool matmul_transposed();
void copy_tile(std::uint32_t cb, std::uint32_t tile, std::uint32_t dst);
/// transpose_wh_tile: DST[dst] = the transpose of tile `tile` of `cb`, through SrcA.
void transpose_wh_tile(std::uint32_t cb, std::uint32_t tile, std::uint32_t dst);
/// unary_bcast: DST[dst] = row 0 (Row), column 0 (Col) or element (0, 0) (Scalar) of tile `tile`
/// of `cb` across the tile.
void unary_bcast(Bcast bcast, std::uint32_t cb, std::uint32_t tile, std::uint32_t dst);
void binary_tiles(Binary op, Bcast bcast, std::uint32_t cb0, std::uint32_t cb1, std::uint32_t tile0,
                  std::uint32_t tile1, std::uint32_t dst);
void matmul_tiles(std::uint32_t cb0, std::uint32_t cb1, std::uint32_t tile0, std::uint32_t tile1,
                  std::uint32_t dst, bool transpose);
/// matmul_block: DST[dst + r * ct + c] += in0[tile0 + r * kt] x in1[tile1 + c] for the rt x ct
/// sub-block, one k step, timed as one call.
void matmul_block(std::uint32_t cb0, std::uint32_t cb1, std::uint32_t tile0, std::uint32_t tile1,
                  std::uint32_t dst, bool transpose, std::uint32_t ct, std::uint32_t rt,
                  std::uint32_t kt);
/// llk_unpack_AB_matmul: the in0 and in1 tiles (in0 with row stride kt) the next math_matmul
/// multiplies.
void unpack_ab_matmul(std::uint32_t cb0, std::uint32_t cb1, std::uint32_t tile0,
                      std::uint32_t tile1, std::uint32_t kt);
/// llk_math_matmul: matmul_block of the tiles the last unpack_ab_matmul selected.
void math_matmul(std::uint32_t dst, std::uint32_t ct, std::uint32_t rt);
/// An *_init* call with no other effect in the emulator (its cost, in timing mode).
void init_call();
void unary_tile(Unary op, std::uint32_t dst, float param);
/// An SFPU op of three parameters (softplus: beta, 1/beta, threshold).
/// `vector_mode`: tt-llk's VectorMode (llk_defs.h), the faces the call runs and is timed for.
void unary_tile(Unary op, std::uint32_t dst, float param0, float param1, float param2,
                int vector_mode = 4);
void dst_binary_tile(DstBinary op, std::uint32_t dst0, std::uint32_t dst1, std::uint32_t odst,
                     int vector_mode = 4);
/// where_tile: DST[odst] = DST[c] != 0 ? DST[a] : DST[b], element by element (float formats).
void where_tile(bool float_format, std::uint32_t c, std::uint32_t a, std::uint32_t b,
                std::uint32_t odst);
// pool: 0 SUM, 1 AVG, 2 MAX, 3 MIN; dim: 0 ROW, 1 COL, 2 SCALAR.
void reduce_tile(int pool, int dim, std::uint32_t cb, std::uint32_t cb_scaler, std::uint32_t tile,
                 std::uint32_t tile_scaler, std::uint32_t dst);
// The packer's reduce edge mask (dim as above): set by reduce_init, cleared by reduce_uninit.
void reduce_pack_mask(int dim);
/// pack_reconfig_l1_acc: whether the packer accumulates into L1 (1) or overwrites it (0).
void pack_l1_acc(std::uint32_t enable);
/// llk_pack_relu_config: the packer's ReLU (tt-llk's _llk_pack_relu_config_: the low 4 bits 0 off,
/// 1 ZERO_RELU; a threshold in the high 16 bits or the MAX_THRESHOLD mode is not modelled).
void pack_relu(std::uint32_t config);
void pack_tile(std::uint32_t dst, std::uint32_t cb, std::uint32_t out_tile, bool out_of_order);

/// The data formats the unpacker (srcA, srcB) and the packer are configured for, each taken from
/// a CB's format: the hardware inits (compute_kernel_hw_startup, mm_init, binary_op_init_common,
/// ...) configure them, reconfig_data_format* and pack_reconfig_data_format change them, and every
/// unpack or pack of a CB of another format is an error (on the device it would read or write the
/// tile in the wrong format). `kKeep` leaves that operand as it is.
inline constexpr std::int32_t kKeep = -1;
void configure_formats(std::int32_t srca_cb, std::int32_t srcb_cb, std::int32_t pack_cb,
                       const char* call);
} // namespace tk::rt::emu
