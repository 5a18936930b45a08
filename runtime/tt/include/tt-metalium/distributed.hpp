// Buffer I/O and workload execution (mirrors tt_metal/api/tt-metalium/distributed.hpp). The
// emulator runs a workload to completion inside EnqueueMeshWorkload, deterministically; kernel
// errors and deadlocks are thrown from there as tk::rt::emu::EmulatorError (a std::runtime_error).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <tt-metalium/mesh_buffer.hpp>
#include <tt-metalium/mesh_command_queue.hpp>
#include <tt-metalium/mesh_coord.hpp>
#include <tt-metalium/mesh_device.hpp>
#include <tt-metalium/mesh_workload.hpp>

namespace tt::tt_metal {
struct SubDeviceId {
  std::uint8_t id = 0;
};
} // namespace tt::tt_metal

namespace tt::tt_metal::distributed {
template <class DType>
void EnqueueWriteMeshBuffer(MeshCommandQueue& /*cq*/, std::shared_ptr<MeshBuffer>& mesh_buffer,
                            const std::vector<DType>& src, bool /*blocking*/ = false) {
  mesh_buffer->write_bytes(src.data(), src.size() * sizeof(DType));
}

template <class DType>
void EnqueueReadMeshBuffer(MeshCommandQueue& /*cq*/, std::vector<DType>& dst,
                           std::shared_ptr<MeshBuffer>& mesh_buffer, bool /*blocking*/ = true) {
  dst.resize(mesh_buffer->size() / sizeof(DType));
  mesh_buffer->read_bytes(dst.data(), dst.size() * sizeof(DType));
}

void EnqueueMeshWorkload(MeshCommandQueue& cq, MeshWorkload& mesh_workload, bool blocking);
void Finish(MeshCommandQueue& cq, std::span<const SubDeviceId> sub_device_ids = {});
} // namespace tt::tt_metal::distributed
