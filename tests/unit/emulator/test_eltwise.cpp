// Eltwise host programs in the SDK's own style (programming_examples/eltwise_binary, eltwise_sfpu)
// on the emulator.
#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/constants.hpp>
#include <tt-metalium/distributed.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>

#include "emu_test_util.hpp"

using namespace tt;
using namespace tt::tt_metal;

namespace {
// Runs out = a + b over n_tiles tiles on one core (eltwise_binary.cpp's flow).
std::vector<bfloat16> run_eltwise_add(const std::vector<bfloat16>& a,
                                      const std::vector<bfloat16>& b, uint32_t n_tiles) {
  auto mesh_device = distributed::MeshDevice::create_unit_mesh(0);
  distributed::MeshCommandQueue& cq = mesh_device->mesh_command_queue();
  distributed::MeshWorkload workload;
  distributed::MeshCoordinateRange device_range(mesh_device->shape());
  Program program = CreateProgram();
  constexpr tt::tt_metal::CoreCoord core = {0, 0};

  constexpr uint32_t tile_size_bytes = sizeof(bfloat16) * constants::TILE_HW;
  distributed::DeviceLocalBufferConfig dram_config{.page_size = tile_size_bytes,
                                                   .buffer_type = BufferType::DRAM};
  distributed::ReplicatedBufferConfig buffer_config{.size = tile_size_bytes * n_tiles};
  auto src0 = distributed::MeshBuffer::create(buffer_config, dram_config, mesh_device.get());
  auto src1 = distributed::MeshBuffer::create(buffer_config, dram_config, mesh_device.get());
  auto dst = distributed::MeshBuffer::create(buffer_config, dram_config, mesh_device.get());
  distributed::EnqueueWriteMeshBuffer(cq, src0, a, false);
  distributed::EnqueueWriteMeshBuffer(cq, src1, b, false);

  constexpr uint32_t tiles_per_cb = 2;
  for (auto cb : {CBIndex::c_0, CBIndex::c_1, CBIndex::c_16}) {
    CreateCircularBuffer(
        program, core,
        CircularBufferConfig(tiles_per_cb * tile_size_bytes, {{cb, tt::DataFormat::Float16_b}})
            .set_page_size(cb, tile_size_bytes));
  }
  std::vector<uint32_t> reader_args;
  TensorAccessorArgs(*src0).append_to(reader_args);
  TensorAccessorArgs(*src1).append_to(reader_args);
  auto reader = CreateKernel(program, tk::test::kernel("dataflow/read_tiles.cpp"), core,
                             DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                                .noc = NOC::RISCV_0_default,
                                                .compile_args = reader_args});
  std::vector<uint32_t> writer_args;
  TensorAccessorArgs(*dst).append_to(writer_args);
  auto writer = CreateKernel(program, tk::test::kernel("dataflow/write_tile.cpp"), core,
                             DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                                .noc = NOC::RISCV_1_default,
                                                .compile_args = writer_args});
  auto compute = CreateKernel(program, tk::test::kernel("compute/tiles_add.cpp"), core,
                              ComputeConfig{.math_fidelity = tt::tt_metal::MathFidelity::HiFi4});
  SetRuntimeArgs(
      program, reader, core,
      {static_cast<uint32_t>(src0->address()), static_cast<uint32_t>(src1->address()), n_tiles});
  SetRuntimeArgs(program, writer, core, {static_cast<uint32_t>(dst->address()), n_tiles, 0u});
  SetRuntimeArgs(program, compute, core, {n_tiles});

  workload.add_program(device_range, std::move(program));
  distributed::EnqueueMeshWorkload(cq, workload, false);
  distributed::Finish(cq);
  std::vector<bfloat16> result;
  distributed::EnqueueReadMeshBuffer(cq, result, dst, true);
  mesh_device->close();
  return result;
}
} // namespace

TEST(EmulatorEltwise, AddsSixtyFourTiles) {
  constexpr uint32_t n_tiles = 64;
  const auto a = tk::test::random_bf16(n_tiles * 1024, 0.0f, 1.0f, 1);
  const std::vector<bfloat16> b(n_tiles * 1024, bfloat16(-1.0f));
  const auto out = run_eltwise_add(a, b, n_tiles);
  std::vector<float> want(a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    want[i] = static_cast<float>(a[i]) - 1.0f;
  tk::test::expect_close(out, want, 1.6e-2, 1.6e-2);
  // bf16 a - 1 for a in [0, 1) is exact in bf16 after rounding: check bit-exact agreement too.
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(out[i], bfloat16(want[i])) << "element " << i;
}
