// MeshDevice and MeshBuffer: the device's memories (the architecture's DRAM banks, one L1 window
// per worker core) and interleaved buffers with the SDK's page -> bank mapping.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <regex>

#include <tt-metalium/distributed.hpp>

#include "state.hpp"

namespace tk::rt::emu {
namespace {
// The chip the device emulates: TK_EMULATOR_ARCH names one of arch/'s (arch::find), else the
// default architecture.
const arch::ArchSpec& arch_from_env() {
  const char* env = std::getenv("TK_EMULATOR_ARCH");
  if (env == nullptr || *env == '\0')
    return arch::default_arch();
  const arch::ArchSpec* a = arch::find(env);
  if (a == nullptr) {
    throw EmulatorError(std::string("TK_EMULATOR_ARCH='") + env + "' is not an architecture; " +
                        "the known ones are " + arch::names());
  }
  return *a;
}

CoreCoord grid_from_env(const arch::ArchSpec& a) {
  const char* env = std::getenv("TT_METAL_EMULATOR_GRID");
  if (env == nullptr || *env == '\0')
    return {a.grid_x, a.grid_y};
  std::cmatch m;
  if (!std::regex_match(env, m, std::regex(R"((\d+)x(\d+))")) || std::stoul(m[1]) == 0 ||
      std::stoul(m[2]) == 0 || std::stoul(m[1]) > 16 || std::stoul(m[2]) > 16) {
    throw EmulatorError(std::string("TT_METAL_EMULATOR_GRID='") + env +
                        "' must be <rows>x<cols>, each 1..16");
  }
  const CoreCoord grid{std::stoul(m[2]), std::stoul(m[1])};
  // A worker must not sit on a DRAM bank's NoC coordinate (past the die's grid on Blackhole).
  for (std::uint32_t x = 0; x < grid.x; ++x)
    for (std::uint32_t y = 0; y < grid.y; ++y)
      for (const arch::NocCoord& d : a.dram_bank_nocs())
        if (a.worker_noc(x, y) == d) {
          throw EmulatorError(std::string("TT_METAL_EMULATOR_GRID='") + env + "': worker (" +
                              std::to_string(x) + "," + std::to_string(y) + ") of " +
                              std::string(a.name) + " would sit on DRAM bank (" +
                              std::to_string(d.x) + "," + std::to_string(d.y) + ")");
        }
  return grid;
}
} // namespace

const arch::ArchSpec& device_arch(const tt::tt_metal::distributed::MeshDevice& device) {
  return device.state()->arch;
}

std::string cb_name(std::uint32_t cb) {
  return "c_" + std::to_string(cb);
}
bool cb_in_range(const arch::ArchSpec& a, std::int64_t cb) {
  return cb >= 0 && cb < static_cast<std::int64_t>(a.num_circular_buffers);
}
std::string cb_out_of_range(const arch::ArchSpec& a, std::int64_t cb) {
  return "CB index " + std::to_string(cb) + " is out of range (" +
         std::to_string(a.num_circular_buffers) + " CBs on " + std::string(a.name) + ")";
}
std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

CoreCoord DeviceState::worker_noc(const CoreCoord& logical) const {
  const arch::NocCoord c =
      arch.worker_noc(static_cast<std::uint32_t>(logical.x), static_cast<std::uint32_t>(logical.y));
  return {c.x, c.y};
}
std::optional<CoreCoord> DeviceState::worker_at(std::uint32_t x, std::uint32_t y) const {
  const std::optional<arch::NocCoord> w = arch.worker_at_noc(x, y);
  if (!w || w->x >= grid.x || w->y >= grid.y)
    return std::nullopt;
  return CoreCoord{w->x, w->y};
}
CoreCoord DeviceState::dram_bank_noc(std::uint32_t bank) const {
  const arch::NocCoord c = arch.dram_bank_nocs()[bank];
  return {c.x, c.y};
}

bool dram_holds_bytes(bool launch) {
  return launch ? compute_detail::math_on() : math_enabled();
}

DeviceState::DeviceState(const arch::ArchSpec& a, CoreCoord grid_size)
    : arch(a), grid(grid_size), l1_bottom(a.l1_size) {
  // Kernels turn L1 addresses (uint32_t) into pointers, so every core's L1 must live below 4 GiB.
  const std::size_t bytes = std::size_t{num_cores()} * arch.l1_size;
  // A memfd, so that the window a kernel addresses directly (l1_window.cpp) shares these pages.
  l1_fd = make_l1_memfd(bytes);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_32BIT, l1_fd, 0);
  if (p == MAP_FAILED) {
    close(l1_fd);
    throw EmulatorError("cannot map " + std::to_string(bytes) + " bytes of L1 below 4 GiB");
  }
  l1_base = static_cast<std::uint8_t*>(p);
  // Every bank's whole size, reserved: pages are zero until written and take no memory before.
  const std::size_t dram_bytes = std::size_t{arch.dram_banks} * arch.dram_bank_bytes;
  void* d = mmap(nullptr, dram_bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (d == MAP_FAILED) {
    munmap(l1_base, bytes);
    close(l1_fd);
    throw EmulatorError("cannot reserve " + std::to_string(dram_bytes) + " bytes for " +
                        std::to_string(arch.dram_banks) + " DRAM banks");
  }
  dram_base = static_cast<std::uint8_t*>(d);
}
DeviceState::~DeviceState() {
  munmap(dram_base, std::size_t{arch.dram_banks} * arch.dram_bank_bytes);
  munmap(l1_base, std::size_t{num_cores()} * arch.l1_size);
  close(l1_fd);
}
} // namespace tk::rt::emu

namespace tt::tt_metal::distributed {
using namespace tk::rt::emu;

MeshDevice::MeshDevice(int id, const MeshShape& shape, std::size_t num_command_queues,
                       std::size_t trace_region_size)
    : id_(id), shape_(shape), trace_region_size_(trace_region_size) {
  // The SDK's dispatch offers one or two hardware command queues per device.
  if (num_command_queues < 1 || num_command_queues > 2)
    throw EmulatorError("num_hw_cqs can be between 1 and 2, got " +
                        std::to_string(num_command_queues));
  const tk::arch::ArchSpec& a = arch_from_env();
  for (std::size_t i = 0; i < shape.mesh_size(); ++i)
    states_.push_back(std::make_shared<DeviceState>(a, grid_from_env(a)));
  for (std::size_t i = 0; i < num_command_queues; ++i)
    cqs_.push_back(std::make_unique<MeshCommandQueue>(this, static_cast<std::uint32_t>(i)));
  allocator_impl_ = std::make_unique<AllocatorImpl>(*states_.front());
  allocator_ = std::make_unique<Allocator>(allocator_impl_.get());
}
MeshDevice::~MeshDevice() = default;

std::shared_ptr<MeshDevice> MeshDevice::create_unit_mesh(int device_id, std::size_t,
                                                         std::size_t trace_region_size,
                                                         std::size_t num_command_queues,
                                                         const DispatchCoreConfig&) {
  if (device_id != 0)
    throw EmulatorError("the emulator has one device, id 0; asked for " +
                        std::to_string(device_id));
  return std::shared_ptr<MeshDevice>(
      new MeshDevice(device_id, MeshShape(1, 1), num_command_queues, trace_region_size));
}
std::shared_ptr<MeshDevice> MeshDevice::create(const MeshDeviceConfig& config, std::size_t,
                                               std::size_t trace_region_size,
                                               std::size_t num_command_queues,
                                               const DispatchCoreConfig&) {
  const MeshShape shape = config.mesh_shape().value_or(MeshShape(1, 1));
  // Each device's L1 is mapped below 2 GiB (MAP_32BIT); 32 devices (a Galaxy) fit.
  if (shape.dims() != 2 || shape.mesh_size() == 0 || shape.mesh_size() > 32)
    throw EmulatorError("MeshDevice::create: the emulator opens 2-D meshes of 1 to 32 devices");
  return std::shared_ptr<MeshDevice>(
      new MeshDevice(0, shape, num_command_queues, trace_region_size));
}
bool MeshDevice::is_local(const MeshCoordinate& coord) const {
  return coord.dims() == 2 && coord[0] < num_rows() && coord[1] < num_cols();
}
const std::shared_ptr<DeviceState>& MeshDevice::state(const MeshCoordinate& coord) const {
  if (!is_local(coord))
    throw EmulatorError("device coordinate (" + std::to_string(coord[0]) + ", " +
                        std::to_string(coord[1]) + ") is outside the " +
                        std::to_string(num_rows()) + "x" + std::to_string(num_cols()) + " mesh");
  return states_[coord[0] * num_cols() + coord[1]];
}
bool MeshDevice::close() {
  return true;
}
MeshCommandQueue& MeshDevice::mesh_command_queue(std::optional<std::uint8_t> cq_id) const {
  const std::size_t id = cq_id.value_or(0);
  if (id >= cqs_.size())
    throw EmulatorError("command queue " + std::to_string(id) + " does not exist: the device has " +
                        std::to_string(cqs_.size()) + " (num_command_queues at create)");
  return *cqs_[id];
}
CoreCoord MeshDevice::compute_with_storage_grid_size() const {
  return state()->grid;
}
CoreCoord MeshDevice::worker_core_from_logical_core(const CoreCoord& logical_core) const {
  if (logical_core.x >= state()->grid.x || logical_core.y >= state()->grid.y) {
    throw EmulatorError("logical core " + logical_core.str() + " is outside the " +
                        std::to_string(state()->grid.x) + "x" + std::to_string(state()->grid.y) +
                        " worker grid");
  }
  return state()->worker_noc(logical_core);
}
std::uint32_t MeshDevice::l1_size_per_core() const {
  return state()->arch.l1_size;
}
std::size_t MeshDevice::num_dram_channels() const {
  return state()->arch.dram_banks;
}

namespace {
// The SDK's validate_mesh_buffer_config (tt_metal/distributed/mesh_buffer.cpp): the shards tile
// the global shape and fit on the mesh, counting replicated dimensions.
void validate(const ShardedBufferConfig& c, const MeshDevice& mesh) {
  const auto [height, width] = c.global_buffer_shape;
  const auto [shard_height, shard_width] = c.physical_shard_shape();
  if (height == 0 || width == 0 || height % shard_height != 0 || width % shard_width != 0)
    throw EmulatorError("MeshBuffer::create: global buffer shape (" + std::to_string(height) +
                        ", " + std::to_string(width) + ") is not a multiple of the shard shape (" +
                        std::to_string(shard_height) + ", " + std::to_string(shard_width) + ")");
  std::size_t shards = (height / shard_height) * (width / shard_width);
  const auto [height_replicated, width_replicated] = c.replicated_dims();
  if (height_replicated && width_replicated)
    shards *= mesh.num_devices();
  else if (height_replicated || width_replicated)
    shards *=
        c.shard_orientation == ShardOrientation::ROW_MAJOR ? mesh.num_rows() : mesh.num_cols();
  if (shards > mesh.num_devices())
    throw EmulatorError("MeshBuffer::create: " + std::to_string(shards) +
                        " shards do not fit on a mesh of " + std::to_string(mesh.num_devices()) +
                        " devices");
}

// Allocates `bytes_per_bank` in every DRAM bank (or every core's L1) of `st`; the same address
// on each device of a mesh, since every device sees the same allocations.
Allocation allocate(DeviceState& st, bool dram, std::uint64_t bytes, DeviceAddr align) {
  Allocation a{static_cast<std::uint32_t>(st.allocations.size()), dram, 0, bytes, true};
  if (dram) {
    a.address = (st.dram_top + align - 1) / align * align;
    if (a.address + bytes > st.arch.dram_bank_bytes)
      throw EmulatorError("out of DRAM: each of the " + std::to_string(st.dram_banks()) +
                          " banks holds " + std::to_string(st.arch.dram_bank_bytes >> 20) + " MiB");
    st.dram_top = a.address + bytes;
  } else {
    if (bytes > st.l1_bottom || st.l1_bottom - bytes < st.arch.first_free_l1_address())
      throw EmulatorError("out of L1 for an L1 buffer");
    a.address = (st.l1_bottom - bytes) / align * align;
    st.l1_bottom = a.address;
  }
  st.allocations.push_back(a);
  return a;
}
} // namespace

} // namespace tt::tt_metal::distributed

namespace tt::tt_metal {
using tk::rt::emu::EmulatorError;
std::uint32_t Allocator::get_num_banks(const BufferType& buffer_type) const {
  if (buffer_type == BufferType::DRAM)
    return impl->dev.dram_banks();
  if (buffer_type == BufferType::L1)
    return impl->dev.num_cores();
  throw EmulatorError("Allocator: the emulator has DRAM and L1 banks only");
}
DeviceAddr Allocator::get_bank_size(const BufferType& buffer_type) const {
  if (buffer_type == BufferType::DRAM)
    return impl->dev.arch.dram_bank_bytes;
  if (buffer_type == BufferType::L1)
    return impl->dev.arch.l1_size - impl->dev.arch.first_free_l1_address();
  throw EmulatorError("Allocator: the emulator has DRAM and L1 banks only");
}
std::uint32_t Allocator::get_alignment(BufferType buffer_type) const {
  if (buffer_type == BufferType::DRAM)
    return impl->dev.arch.dram_alignment;
  if (buffer_type == BufferType::L1)
    return impl->dev.arch.l1_alignment;
  throw EmulatorError("Allocator: the emulator has DRAM and L1 banks only");
}
} // namespace tt::tt_metal

namespace tt::tt_metal {
bool is_sharded(const TensorMemoryLayout& layout) {
  return layout == TensorMemoryLayout::HEIGHT_SHARDED ||
         layout == TensorMemoryLayout::WIDTH_SHARDED ||
         layout == TensorMemoryLayout::BLOCK_SHARDED || layout == TensorMemoryLayout::ND_SHARDED;
}
} // namespace tt::tt_metal

namespace tt::tt_metal::distributed {
using namespace tk::rt::emu;
namespace {
// Where each host page of a sharded buffer lives: (core index on the device, page in its shard).
// The SDK's generate_buffer_page_mapping and core_to_host_pages (tt_metal/impl/buffers/buffer.cpp):
// the shards go to the grid's cores in orientation order; HEIGHT_SHARDED deals the pages in order,
// shard_pages to a core; WIDTH_ and BLOCK_SHARDED cut the page grid into shard_in_pages blocks,
// row of blocks by row of blocks; a partial shard's pages keep their (row, column) in the shard.
std::vector<std::pair<std::uint32_t, std::uint32_t>> shard_page_mapping(const DeviceState& st,
                                                                        TensorMemoryLayout layout,
                                                                        const ShardSpecBuffer& spec,
                                                                        std::uint32_t num_pages) {
  const auto cores = corerange_to_cores(spec.grid(), spec.grid().num_cores(),
                                        spec.orientation() == ShardOrientation::ROW_MAJOR);
  const auto shard = spec.shape_in_pages();
  const auto tensor = spec.tensor2d_shape_in_pages;
  if (shard[0] == 0 || shard[1] == 0 || std::uint64_t{tensor[0]} * tensor[1] != num_pages)
    throw EmulatorError("MeshBuffer::create: the shard spec's " + std::to_string(tensor[0]) + "x" +
                        std::to_string(tensor[1]) + " pages do not match the buffer's " +
                        std::to_string(num_pages) + " pages");
  std::vector<std::pair<std::uint32_t, std::uint32_t>> where(num_pages, {~0u, ~0u});
  for (const CoreCoord& c : cores)
    if (c.x >= st.grid.x || c.y >= st.grid.y)
      throw EmulatorError("MeshBuffer::create: shard core " + c.str() + " is outside the " +
                          st.grid.str() + " worker grid");
  const std::uint32_t pages_per_shard = shard[0] * shard[1];
  if (layout == TensorMemoryLayout::HEIGHT_SHARDED) {
    // Pages in order; core i's shard is full rows of shard[1] pages.
    for (std::uint32_t p = 0; p < num_pages; ++p) {
      const std::uint32_t i = p / pages_per_shard;
      if (i >= cores.size())
        throw EmulatorError("MeshBuffer::create: " + std::to_string(num_pages) +
                            " pages do not fit in " + std::to_string(cores.size()) + " shards of " +
                            std::to_string(pages_per_shard) + " pages");
      where[p] = {st.core_index(cores[i]), p % pages_per_shard};
    }
  } else if (layout == TensorMemoryLayout::WIDTH_SHARDED ||
             layout == TensorMemoryLayout::BLOCK_SHARDED) {
    const std::uint32_t shard_columns = (tensor[1] + shard[1] - 1) / shard[1];
    const std::uint32_t shards = ((tensor[0] + shard[0] - 1) / shard[0]) * shard_columns;
    if (shards > cores.size())
      throw EmulatorError("MeshBuffer::create: " + std::to_string(shards) + " shards for " +
                          std::to_string(cores.size()) + " cores");
    for (std::uint32_t i = 0; i < tensor[0]; ++i)
      for (std::uint32_t j = 0; j < tensor[1]; ++j) {
        const std::uint32_t s = (i / shard[0]) * shard_columns + j / shard[1];
        where[i * tensor[1] + j] = {st.core_index(cores[s]),
                                    (i % shard[0]) * shard[1] + j % shard[1]};
      }
  } else {
    throw EmulatorError("MeshBuffer::create: the emulator shards HEIGHT_, WIDTH_ and "
                        "BLOCK_SHARDED buffers with a ShardSpecBuffer only");
  }
  return where;
}
} // namespace

std::shared_ptr<MeshBuffer> MeshBuffer::create(const MeshBufferConfig& mesh_buffer_config,
                                               const DeviceLocalBufferConfig& local,
                                               MeshDevice* mesh_device,
                                               std::optional<DeviceAddr> address) {
  std::shared_ptr<MeshBuffer> buf(new MeshBuffer());
  buf->config_ = mesh_buffer_config;
  buf->local_config_ = local;
  if (const auto* sharded = std::get_if<ShardedBufferConfig>(&mesh_buffer_config)) {
    validate(*sharded, *mesh_device);
    const auto [shard_height, shard_width] = sharded->physical_shard_shape();
    buf->size_ = sharded->global_size;
    buf->device_local_size_ = sharded->compute_datum_size_bytes() * shard_height * shard_width;
  } else {
    buf->size_ = buf->device_local_size_ =
        std::get<ReplicatedBufferConfig>(mesh_buffer_config).size;
  }
  if (local.page_size == 0 || buf->device_local_size_ == 0)
    throw EmulatorError("MeshBuffer::create: size and page_size must be > 0");
  if (address)
    throw EmulatorError(
        "MeshBuffer::create: the emulator does not place buffers at a given address");
  buf->device_ = mesh_device;
  buf->page_size_ = local.page_size;
  buf->type_ = local.buffer_type;
  const bool dram = local.buffer_type == BufferType::DRAM;
  if (!dram && local.buffer_type != BufferType::L1)
    throw EmulatorError("MeshBuffer::create: only DRAM and L1 buffers");
  const auto& st0 = *mesh_device->state();
  const DeviceAddr align = dram ? st0.arch.dram_alignment : st0.arch.l1_alignment;
  buf->aligned_page_size_ = (local.page_size + align - 1) / align * align;
  const std::uint32_t banks = dram ? st0.dram_banks() : st0.num_cores();
  std::uint64_t pages_per_bank = (buf->num_pages() + banks - 1) / banks;
  const auto& sharding = local.sharding_args;
  if (is_sharded(sharding.buffer_layout())) {
    if (!sharding.shard_spec())
      throw EmulatorError("Buffer was specified as sharded but does not have shard_spec or "
                          "buffer_distribution_spec specified");
    if (dram)
      throw EmulatorError("MeshBuffer::create: the emulator shards L1 buffers only");
    buf->shard_pages_ =
        shard_page_mapping(st0, sharding.buffer_layout(), *sharding.shard_spec(), buf->num_pages());
    pages_per_bank = sharding.shard_spec()->num_pages();
  } else if (sharding.shard_spec()) {
    throw EmulatorError("Buffer was specified as not sharded but has shard_spec or "
                        "buffer_distribution_spec specified");
  }
  const std::uint64_t bytes = pages_per_bank * buf->aligned_page_size_;
  buf->bank_bytes_ = bytes;
  for (const MeshCoordinate& coord : MeshCoordinateRange(mesh_device->shape())) {
    const auto& st = mesh_device->state(coord);
    const Allocation a = allocate(*st, dram, bytes, align);
    if (buf->states_.empty()) {
      buf->address_ = a.address;
      buf->id_ = a.id;
    } else if (a.address != buf->address_ || a.id != buf->id_) {
      throw EmulatorError("MeshBuffer::create: the devices' allocators diverged");
    }
    buf->states_.push_back(st);
  }
  return buf;
}

MeshBuffer::~MeshBuffer() {
  for (const auto& st : states_)
    st->allocations[id_].alive = false;
}

const ShardedBufferConfig& MeshBuffer::global_shard_spec() const {
  if (const auto* sharded = std::get_if<ShardedBufferConfig>(&config_))
    return *sharded;
  throw EmulatorError("Can only query the global shard spec for a sharded MeshBuffer");
}
std::uint32_t MeshBuffer::datum_size_bytes() const {
  return global_shard_spec().compute_datum_size_bytes();
}
Buffer* MeshBuffer::get_device_buffer(const MeshCoordinate& device_coord) const {
  device_->state(device_coord); // checks the coordinate
  return &backing_;
}

namespace {
std::uint8_t* page_ptr(DeviceState& st, bool dram, std::uint64_t base, std::uint64_t aligned,
                       std::uint32_t page,
                       const std::vector<std::pair<std::uint32_t, std::uint32_t>>& shard_pages) {
  if (!shard_pages.empty())
    return st.l1(shard_pages[page].first) + base + shard_pages[page].second * aligned;
  if (dram)
    return st.dram(page % st.dram_banks()) + base + (page / st.dram_banks()) * aligned;
  return st.l1(page % st.num_cores()) + base + (page / st.num_cores()) * aligned;
}
} // namespace

void MeshBuffer::write_device(const MeshCoordinate& coord, const void* src, std::size_t bytes) {
  if (bytes > device_local_size_)
    throw EmulatorError("write of " + std::to_string(bytes) + " bytes into a buffer of " +
                        std::to_string(device_local_size_) + " bytes per device");
  auto& st = *device_->state(coord);
  if (is_dram() && !dram_holds_bytes(false))
    return;
  const auto* in = static_cast<const std::uint8_t*>(src);
  for (std::size_t off = 0; off < bytes; off += page_size_) {
    const auto page = static_cast<std::uint32_t>(off / page_size_);
    std::memcpy(page_ptr(st, is_dram(), address_, aligned_page_size_, page, shard_pages_), in + off,
                std::min<std::size_t>(page_size_, bytes - off));
  }
}

void MeshBuffer::read_device(const MeshCoordinate& coord, void* dst, std::size_t bytes) const {
  auto& st = *device_->state(coord);
  if (is_dram() && !dram_holds_bytes(false))
    return; // `dst` keeps what it held: undefined, as every output without the arithmetic
  auto* out = static_cast<std::uint8_t*>(dst);
  for (std::size_t off = 0; off < bytes; off += page_size_) {
    const auto page = static_cast<std::uint32_t>(off / page_size_);
    std::memcpy(out + off,
                page_ptr(st, is_dram(), address_, aligned_page_size_, page, shard_pages_),
                std::min<std::size_t>(page_size_, bytes - off));
  }
}
} // namespace tt::tt_metal::distributed
