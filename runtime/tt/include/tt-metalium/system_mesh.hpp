// The system's mesh of devices (mirrors tt_metal/api/tt-metalium/system_mesh.hpp:
// `static SystemMesh& instance()`, `const MeshShape& shape() const`, `const MeshShape&
// local_shape() const`). The emulated system is one Wormhole n150 (or, with TK_EMULATOR_ARCH, one
// P150): a 1x1 mesh, local and global alike. (A MeshDevice of any shape can still be opened; the
// emulator creates its devices on demand.) get_mapped_devices, which needs the fabric's node ids,
// is not mirrored.
#pragma once
#include <tt-metalium/mesh_coord.hpp>

namespace tt::tt_metal::distributed {
class SystemMesh {
public:
  static SystemMesh& instance();
  SystemMesh(const SystemMesh&) = delete;
  SystemMesh& operator=(const SystemMesh&) = delete;
  SystemMesh(SystemMesh&&) = delete;
  SystemMesh& operator=(SystemMesh&&) = delete;
  const MeshShape& shape() const { return shape_; }
  const MeshShape& local_shape() const { return shape_; }

private:
  SystemMesh() = default;
  MeshShape shape_{1, 1};
};
} // namespace tt::tt_metal::distributed
