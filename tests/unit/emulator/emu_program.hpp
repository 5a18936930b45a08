// A small builder for the tests' host programs; every call is the SDK's host API, as a host program
// writes it.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/distributed.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>

#include "emu_test_util.hpp"

namespace tk::test {
using namespace tt::tt_metal;
constexpr uint32_t kBf16Tile = 2048;

struct ProgramBuilder {
  std::shared_ptr<distributed::MeshDevice> dev = distributed::MeshDevice::create_unit_mesh(0);
  Program program = CreateProgram();
  std::variant<CoreCoord, CoreRange, CoreRangeSet> cores = CoreCoord{0, 0};

  std::shared_ptr<distributed::MeshBuffer> dram(uint32_t tiles, uint32_t page = kBf16Tile) {
    return distributed::MeshBuffer::create(
        distributed::ReplicatedBufferConfig{.size = tiles * page},
        distributed::DeviceLocalBufferConfig{.page_size = page, .buffer_type = BufferType::DRAM},
        dev.get());
  }
  std::shared_ptr<distributed::MeshBuffer> dram(const std::vector<bfloat16>& data) {
    auto b = dram(static_cast<uint32_t>(data.size() / 1024));
    distributed::EnqueueWriteMeshBuffer(dev->mesh_command_queue(), b, data, false);
    return b;
  }
  void cb(tt::CBIndex index, uint32_t pages, uint32_t page = kBf16Tile,
          tt::DataFormat fmt = tt::DataFormat::Float16_b) {
    CreateCircularBuffer(
        program, cores,
        CircularBufferConfig(pages * page, {{index, fmt}}).set_page_size(index, page));
  }
  KernelHandle reader(const std::string& path,
                      const std::vector<std::shared_ptr<distributed::MeshBuffer>>& accessors,
                      std::map<std::string, std::string> defines = {}) {
    std::vector<uint32_t> args;
    for (const auto& b : accessors)
      TensorAccessorArgs(*b).append_to(args);
    return CreateKernel(program, kernel(path), cores,
                        DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                           .noc = NOC::RISCV_1_default,
                                           .compile_args = args,
                                           .defines = std::move(defines)});
  }
  KernelHandle writer(const std::string& path,
                      const std::vector<std::shared_ptr<distributed::MeshBuffer>>& accessors,
                      std::map<std::string, std::string> defines = {}) {
    std::vector<uint32_t> args;
    for (const auto& b : accessors)
      TensorAccessorArgs(*b).append_to(args);
    return CreateKernel(program, kernel(path), cores,
                        DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                           .noc = NOC::RISCV_0_default,
                                           .compile_args = args,
                                           .defines = std::move(defines)});
  }
  KernelHandle compute(const std::string& path, ComputeConfig config = {}) {
    return CreateKernel(program, kernel(path), cores, config);
  }
  void run() {
    distributed::MeshWorkload workload;
    workload.add_program(distributed::MeshCoordinateRange(dev->shape()), std::move(program));
    distributed::EnqueueMeshWorkload(dev->mesh_command_queue(), workload, false);
    distributed::Finish(dev->mesh_command_queue());
  }
  std::vector<bfloat16> read(std::shared_ptr<distributed::MeshBuffer>& b) {
    std::vector<bfloat16> out;
    distributed::EnqueueReadMeshBuffer(dev->mesh_command_queue(), out, b, true);
    return out;
  }
  static uint32_t addr(const std::shared_ptr<distributed::MeshBuffer>& b) {
    return static_cast<uint32_t>(b->address());
  }
};

// Element (r, c) of tile `t` in the four-face page layout.
inline std::size_t at(std::size_t t, int r, int c) {
  return t * 1024 + ((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16;
}
} // namespace tk::test
