// A set of programs, each bound to a range of mesh devices (mirrors
// tt_metal/api/tt-metalium/mesh_workload.hpp).
#pragma once
#include <utility>
#include <vector>

#include <tt-metalium/host_api.hpp> // as the SDK's mesh_workload.hpp
#include <tt-metalium/mesh_coord.hpp>
#include <tt-metalium/program.hpp>

namespace tt::tt_metal::distributed {
class MeshWorkload {
public:
  MeshWorkload() = default;
  void add_program(const MeshCoordinateRange& device_range, Program&& program) {
    programs_.emplace_back(device_range, std::move(program));
  }
  std::vector<std::pair<MeshCoordinateRange, Program>>& get_programs() { return programs_; }

private:
  std::vector<std::pair<MeshCoordinateRange, Program>> programs_;
};
} // namespace tt::tt_metal::distributed
