// The one IR expresses what the later stages produce: TT reader/compute/writer kernels with CB
// protocol and DST management (docs/tt_metal.md §4.2) and the typed host plan that launches them,
// and a CPU kernel with fused 32x32 element loops. Written by hand here, they must verify and read
// back to the same text.
#include "ir_test_util.hpp"

#include "lowering/ir/verifier.hpp"

namespace tk::ir {
namespace {

const char* kEltwiseAddTT = R"(program eltwise_add {
  options grid 8x8 cb_depth 2 fp32_acc false math_fidelity "HiFi4"
  tensor x: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor y: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor z: bf16[M, N] output layout dram interleaved tile 32x32 page 2048
  accessor x args [2, 2048]
  accessor y args [2, 2048]
  accessor z args [2, 2048]
  cb cb_in0 index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_in1 index 1 format Float16_b page 2048 depth 2 role input tensor y
  cb cb_out0 index 16 format Float16_b page 2048 depth 2 role output tensor z

  func reader eltwise_add_reader() runtime_args [x_addr, y_addr, start, count] compile_args [x at 0, y at 2] processor riscv_1 noc noc_1 {
    let x_addr: u32 = get_arg_val(0)
    let y_addr: u32 = get_arg_val(1)
    let start: u32 = get_arg_val(2)
    let count: u32 = get_arg_val(3)
    tensor_accessor(x, 0, x_addr, get_tile_size(cb_in0))
    tensor_accessor.chained(y, x, y_addr, get_tile_size(cb_in1))
    for t in start .. +count per_core {
      cb_reserve_back(cb_in0, 1)
      noc_async_read_tile(t, x, get_write_ptr(cb_in0))
      cb_reserve_back(cb_in1, 1)
      noc_async_read_tile(t, y, get_write_ptr(cb_in1))
      noc_async_read_barrier()
      cb_push_back(cb_in0, 1)
      cb_push_back(cb_in1, 1)
    }
  }

  func compute eltwise_add_compute() runtime_args [count] compile_args [] math_fidelity hifi4 fp32_dest_acc_en false math_approx_mode false {
    let count: u32 = get_arg_val(0)
    binary_op_init_common(cb_in0, cb_in1, cb_out0)
    add_tiles_init(cb_in0, cb_in1)
    for t in 0 .. count per_core {
      cb_wait_front(cb_in0, 1)
      cb_wait_front(cb_in1, 1)
      tile_regs_acquire()
      add_tiles(cb_in0, cb_in1, 0, 0, 0)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_out0, 1)
      pack_tile(0, cb_out0)
      cb_push_back(cb_out0, 1)
      cb_pop_front(cb_in0, 1)
      cb_pop_front(cb_in1, 1)
      tile_regs_release()
    }
  }

  func writer eltwise_add_writer() runtime_args [z_addr, start, count] compile_args [z at 0] processor riscv_0 noc noc_0 {
    let z_addr: u32 = get_arg_val(0)
    let start: u32 = get_arg_val(1)
    let count: u32 = get_arg_val(2)
    tensor_accessor(z, 0, z_addr, get_tile_size(cb_out0))
    for t in start .. +count per_core {
      cb_wait_front(cb_out0, 1)
      noc_async_write_tile(t, z, get_read_ptr(cb_out0))
      noc_async_write_barrier()
      cb_pop_front(cb_out0, 1)
    }
  }

  func host eltwise_add_host(M: u32, N: u32) {
    let work_items: u32 = M / 32u * (N / 32u)
    let bytes: u32 = work_items * 2048u
  }

  host_plan {
    split split_work_to_cores items work_items grid 8x8 row_wise false
    per_core start count
    buffer x address x_addr size bytes page 2048
    buffer y address y_addr size bytes page 2048
    buffer z address z_addr size bytes page 2048
    kernels [eltwise_add_reader, eltwise_add_compute, eltwise_add_writer]
  }
}
)";

const char* kMatmulCompute = R"(program matmul attributes {fp32_acc = true} {
  tensor A: f32[M, K] input
  tensor B: f32[K, N] input
  tensor C: f32[M, N] output
  cb cb_in0 index 0 format Float32 page 4096 depth 2 role input tensor A
  cb cb_in1 index 1 format Float32 page 4096 depth 2 role input tensor B
  cb cb_out0 index 16 format Float32 page 4096 depth 2 role output tensor C

  func compute matmul_compute() {
    let count: u32 = get_arg_val(0)
    let Kt: u32 = get_compile_time_arg_val(0)
    mm_init(cb_in0, cb_in1, cb_out0)
    for t in 0 .. count per_core {
      tile_regs_acquire()
      for k in 0 .. Kt reduction {
        cb_wait_front(cb_in0, 1)
        cb_wait_front(cb_in1, 1)
        matmul_tiles(cb_in0, cb_in1, 0, 0, 0)
        cb_pop_front(cb_in0, 1)
        cb_pop_front(cb_in1, 1)
      }
      relu_tile_init()
      relu_tile(0)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_out0, 1)
      pack_tile(0, cb_out0)
      cb_push_back(cb_out0, 1)
      tile_regs_release()
    }
  }
}
)";

const char* kCpuFused = R"(program unary_chain {
  tensor x: bf16[M, N] input
  tensor y: bf16[M, N] output

  func cpu unary_chain_cpu(M: i32, N: i32, nthreads: i32) {
    let tiles: i32 = M / 32 * (N / 32)
    for p in 0 .. nthreads per_thread {
      let first: i32 = p * tiles / nthreads
      for w in first .. +(p + 1) * tiles / nthreads - first serial {
        let i: i32 = w / (N / 32)
        let j: i32 = w % (N / 32)
        for r in 0 .. 32 serial {
          for c in 0 .. 32 serial {
            let v: f32 = elem.load(x, i * 32 + r, j * 32 + c)
            elem.store(y, i * 32 + r, j * 32 + c, f32.gelu(f32.exp(v) * 0.5))
          }
        }
      }
    }
  }
}
)";

class Expressiveness : public ::testing::TestWithParam<const char*> {};

TEST_P(Expressiveness, VerifiesAndReadsBack) {
  Module m = test::read_text(GetParam());
  EXPECT_EQ(find_ir_error(m), std::nullopt);
  EXPECT_EQ(print(m), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Kernels, Expressiveness,
                         ::testing::Values(kEltwiseAddTT, kMatmulCompute, kCpuFused));

TEST(Expressiveness, TensorRolesHoldForDataMovementIntrinsics) {
  std::string bad = kEltwiseAddTT;
  bad.replace(bad.find("noc_async_write_tile(t, z,"), 26, "noc_async_write_tile(t, x,");
  EXPECT_EQ(find_ir_error(test::read_text(bad)),
            "in function 'eltwise_add_writer': 'noc_async_write_tile' writes to input tensor 'x'");
}

} // namespace
} // namespace tk::ir
