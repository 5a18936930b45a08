// MeshDevice and MeshBuffer: the device's memories (the architecture's DRAM banks, one L1 window
// per worker core) and interleaved buffers with the SDK's page -> bank mapping.
#include <sys/mman.h>

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

DeviceState::DeviceState(const arch::ArchSpec& a, CoreCoord grid_size)
    : arch(a), grid(grid_size), dram(a.dram_banks), l1_bottom(a.l1_size) {
  // Kernels turn L1 addresses (uint32_t) into pointers, so every core's L1 must live below 4 GiB.
  const std::size_t bytes = std::size_t{num_cores()} * arch.l1_size;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_32BIT, -1, 0);
  if (p == MAP_FAILED)
    throw EmulatorError("cannot map " + std::to_string(bytes) + " bytes of L1 below 4 GiB");
  l1_base = static_cast<std::uint8_t*>(p);
}
DeviceState::~DeviceState() {
  munmap(l1_base, std::size_t{num_cores()} * arch.l1_size);
}
} // namespace tk::rt::emu

namespace tt::tt_metal::distributed {
using namespace tk::rt::emu;

MeshDevice::MeshDevice(int id)
    : id_(id), state_([] {
        const tk::arch::ArchSpec& a = arch_from_env();
        return std::make_shared<DeviceState>(a, grid_from_env(a));
      }()),
      cq_(std::make_unique<MeshCommandQueue>(this)) {}
MeshDevice::~MeshDevice() = default;

std::shared_ptr<MeshDevice> MeshDevice::create_unit_mesh(int device_id, std::size_t, std::size_t,
                                                         std::size_t) {
  if (device_id != 0)
    throw EmulatorError("the emulator has one device, id 0; asked for " +
                        std::to_string(device_id));
  return std::shared_ptr<MeshDevice>(new MeshDevice(device_id));
}
bool MeshDevice::close() {
  return true;
}
MeshCommandQueue& MeshDevice::mesh_command_queue(std::optional<std::uint8_t> cq_id) const {
  if (cq_id.value_or(0) != 0)
    throw EmulatorError("the emulator has one command queue, id 0");
  return *cq_;
}
CoreCoord MeshDevice::compute_with_storage_grid_size() const {
  return state_->grid;
}
CoreCoord MeshDevice::worker_core_from_logical_core(const CoreCoord& logical_core) const {
  if (logical_core.x >= state_->grid.x || logical_core.y >= state_->grid.y) {
    throw EmulatorError("logical core " + logical_core.str() + " is outside the " +
                        std::to_string(state_->grid.x) + "x" + std::to_string(state_->grid.y) +
                        " worker grid");
  }
  return state_->worker_noc(logical_core);
}
std::uint32_t MeshDevice::l1_size_per_core() const {
  return state_->arch.l1_size;
}
std::size_t MeshDevice::num_dram_channels() const {
  return state_->arch.dram_banks;
}

std::shared_ptr<MeshBuffer> MeshBuffer::create(const MeshBufferConfig& mesh_buffer_config,
                                               const DeviceLocalBufferConfig& local,
                                               MeshDevice* mesh_device,
                                               std::optional<DeviceAddr> address) {
  const auto& cfg = std::get<ReplicatedBufferConfig>(mesh_buffer_config);
  if (local.page_size == 0 || cfg.size == 0)
    throw EmulatorError("MeshBuffer::create: size and page_size must be > 0");
  if (address)
    throw EmulatorError(
        "MeshBuffer::create: the emulator does not place buffers at a given address");
  auto& st = *mesh_device->state();
  std::shared_ptr<MeshBuffer> buf(new MeshBuffer());
  buf->device_ = mesh_device;
  buf->state_ = mesh_device->state();
  buf->size_ = cfg.size;
  buf->page_size_ = local.page_size;
  buf->type_ = local.buffer_type;
  const bool dram = local.buffer_type == BufferType::DRAM;
  if (!dram && local.buffer_type != BufferType::L1)
    throw EmulatorError("MeshBuffer::create: only DRAM and L1 buffers");
  const DeviceAddr align = dram ? st.arch.dram_alignment : st.arch.l1_alignment;
  buf->aligned_page_size_ = (local.page_size + align - 1) / align * align;
  const std::uint32_t banks = dram ? st.dram_banks() : st.num_cores();
  const std::uint64_t pages_per_bank = (buf->num_pages() + banks - 1) / banks;
  const std::uint64_t bytes = pages_per_bank * buf->aligned_page_size_;
  Allocation a{static_cast<std::uint32_t>(st.allocations.size()), dram, 0, bytes, true};
  if (dram) {
    a.address = (st.dram_top + align - 1) / align * align;
    if (a.address + bytes > st.arch.dram_bank_bytes)
      throw EmulatorError("out of DRAM: each of the " + std::to_string(banks) + " banks holds " +
                          std::to_string(st.arch.dram_bank_bytes >> 20) + " MiB");
    st.dram_top = a.address + bytes;
    for (auto& bank : st.dram)
      bank.resize(st.dram_top);
  } else {
    if (bytes > st.l1_bottom || st.l1_bottom - bytes < st.arch.first_free_l1_address())
      throw EmulatorError("out of L1 for an L1 buffer");
    a.address = (st.l1_bottom - bytes) / align * align;
    st.l1_bottom = a.address;
  }
  buf->address_ = a.address;
  buf->id_ = a.id;
  st.allocations.push_back(a);
  return buf;
}

MeshBuffer::~MeshBuffer() {
  if (state_)
    state_->allocations[id_].alive = false;
}

namespace {
std::uint8_t* page_ptr(DeviceState& st, bool dram, std::uint64_t base, std::uint64_t aligned,
                       std::uint32_t page) {
  if (dram)
    return st.dram[page % st.dram_banks()].data() + base + (page / st.dram_banks()) * aligned;
  return st.l1(page % st.num_cores()) + base + (page / st.num_cores()) * aligned;
}
} // namespace

void MeshBuffer::write_bytes(const void* src, std::size_t bytes) {
  if (bytes > size_)
    throw EmulatorError("EnqueueWriteMeshBuffer: " + std::to_string(bytes) +
                        " bytes into a buffer of " + std::to_string(size_));
  const auto* in = static_cast<const std::uint8_t*>(src);
  for (std::size_t off = 0; off < bytes; off += page_size_) {
    const auto page = static_cast<std::uint32_t>(off / page_size_);
    std::memcpy(page_ptr(*state_, is_dram(), address_, aligned_page_size_, page), in + off,
                std::min<std::size_t>(page_size_, bytes - off));
  }
}

void MeshBuffer::read_bytes(void* dst, std::size_t bytes) const {
  auto* out = static_cast<std::uint8_t*>(dst);
  for (std::size_t off = 0; off < bytes; off += page_size_) {
    const auto page = static_cast<std::uint32_t>(off / page_size_);
    std::memcpy(out + off, page_ptr(*state_, is_dram(), address_, aligned_page_size_, page),
                std::min<std::size_t>(page_size_, bytes - off));
  }
}
} // namespace tt::tt_metal::distributed
