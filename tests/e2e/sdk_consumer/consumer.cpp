// Host program in the style of tt-metal's programming examples: the SDK's headers and helpers
// (device.hpp, bfloat16 random vectors, get_backing_buffer, TT_FATAL, fmt), a kernel path relative
// to $TT_METAL_KERNEL_PATH, named compile-time args. Exit 0 and "Test Passed" when the copy is
// exact.
#include <fmt/core.h>

#include <cstdint>
#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/device.hpp>
#include <tt-metalium/distributed.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>

using namespace tt::tt_metal;

int main() {
  constexpr uint32_t n_tiles = 4;
  auto mesh_device = distributed::MeshDevice::create_unit_mesh(0);
  distributed::MeshCommandQueue& cq = mesh_device->mesh_command_queue();
  constexpr uint32_t tile_bytes = sizeof(bfloat16) * tt::constants::TILE_HW;
  distributed::DeviceLocalBufferConfig dram{.page_size = tile_bytes,
                                            .buffer_type = BufferType::DRAM};
  distributed::ReplicatedBufferConfig size{.size = tile_bytes * n_tiles};
  auto src = distributed::MeshBuffer::create(size, dram, mesh_device.get());
  auto dst = distributed::MeshBuffer::create(size, dram, mesh_device.get());
  std::vector<bfloat16> input =
      create_random_vector_of_bfloat16_native(tile_bytes * n_tiles, 100.0f, 42, -50.0f);
  distributed::EnqueueWriteMeshBuffer(cq, src, input, false);

  Program program = CreateProgram();
  constexpr CoreCoord core = {0, 0};
  CreateCircularBuffer(
      program, core,
      CircularBufferConfig(2 * tile_bytes, {{tt::CBIndex::c_0, tt::DataFormat::Float16_b}})
          .set_page_size(tt::CBIndex::c_0, tile_bytes));
  std::vector<uint32_t> compile_args;
  TensorAccessorArgs(*src->get_backing_buffer()).append_to(compile_args);
  TensorAccessorArgs(*dst->get_backing_buffer()).append_to(compile_args);
  KernelHandle copy =
      CreateKernel(program, "kernels/copy.cpp", core,
                   DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                      .noc = NOC::RISCV_0_default,
                                      .compile_args = compile_args,
                                      .named_compile_args = {{"n_tiles", n_tiles}}});
  SetRuntimeArgs(program, copy, core,
                 {static_cast<uint32_t>(src->address()), static_cast<uint32_t>(dst->address())});
  distributed::MeshWorkload workload;
  workload.add_program(distributed::MeshCoordinateRange(mesh_device->shape()), std::move(program));
  distributed::EnqueueMeshWorkload(cq, workload, false);
  std::vector<bfloat16> output;
  distributed::EnqueueReadMeshBuffer(cq, output, dst, true);

  TT_FATAL(output.size() == input.size(), "read {} values, wrote {}", output.size(), input.size());
  for (std::size_t i = 0; i < input.size(); ++i)
    TT_FATAL(output[i] == input[i], "value {} is {}, not {}", i, static_cast<float>(output[i]),
             static_cast<float>(input[i]));
  fmt::print("copied {} tiles on core {}\nTest Passed\n", n_tiles, core);
  return 0;
}
