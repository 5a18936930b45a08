// Program construction (kernels, CBs, semaphores, runtime args) and workload launch: lays out each
// core's L1, JIT-loads the kernels and runs every core's kernels as fibers.
#include <algorithm>
#include <cstring>
#include <future>

#include <tt-metalium/distributed.hpp>
#include <tt-metalium/host_api.hpp>

#include "state.hpp"

namespace tt::tt_metal {
using namespace tk::rt::emu;

Program::Program() : impl_(std::make_unique<detail::ProgramImpl>()) {}
Program::~Program() = default;
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;
Program CreateProgram() {
  return Program();
}

CircularBufferConfig::CircularBufferConfig(std::uint32_t total_size,
                                           const std::map<std::uint8_t, tt::DataFormat>& spec)
    : total_size_(total_size), formats_(spec) {
  for (const auto& [index, format] : spec) {
    // The host's tables hold the largest architecture's CBs; the device's own count is checked
    // when the program is placed on it (assign_cb_addresses).
    if (index >= tk::arch::kMaxCircularBuffers) {
      throw EmulatorError("CircularBufferConfig: CB index " + std::to_string(index) +
                          " is out of range (" + std::to_string(tk::arch::kMaxCircularBuffers) +
                          " CBs on any architecture)");
    }
  }
}
CircularBufferConfig& CircularBufferConfig::set_page_size(std::uint8_t index,
                                                          std::uint32_t page_size) {
  if (!formats_.count(index)) {
    throw EmulatorError("CircularBufferConfig::set_page_size: " + cb_name(index) +
                        " has no data format in this config");
  }
  if (page_size == 0 || total_size_ % page_size != 0) {
    throw EmulatorError("CircularBufferConfig::set_page_size: total size " +
                        std::to_string(total_size_) + " is not a multiple of page size " +
                        std::to_string(page_size) + " for " + cb_name(index));
  }
  page_sizes_[index] = page_size;
  return *this;
}
// tt_metal/impl/buffers/circular_buffer_config.cpp: only an L1 buffer; its address, and its
// aligned size per bank as the most the CB may hold.
CircularBufferConfig& CircularBufferConfig::set_globally_allocated_address(const Buffer& buffer) {
  return set_globally_allocated_address_and_total_size(buffer, total_size_);
}
CircularBufferConfig&
CircularBufferConfig::set_globally_allocated_address_and_total_size(const Buffer& buffer,
                                                                    std::uint32_t total_size) {
  if (!buffer.is_l1())
    throw EmulatorError("Only L1 buffers can have an associated circular buffer!");
  globally_allocated_address_ = buffer.address();
  max_size_ = static_cast<std::uint32_t>(buffer.aligned_size_per_bank());
  return set_total_size(total_size);
}
CircularBufferConfig& CircularBufferConfig::set_total_size(std::uint32_t total_size) {
  total_size_ = total_size;
  return *this;
}
CircularBufferConfig& CircularBufferConfig::set_data_format(std::uint8_t index,
                                                            tt::DataFormat format) {
  formats_[index] = format;
  return *this;
}

namespace {
CoreRangeSet to_set(const std::variant<CoreCoord, CoreRange, CoreRangeSet>& spec) {
  if (const auto* c = std::get_if<CoreCoord>(&spec))
    return CoreRangeSet(CoreRange(*c));
  if (const auto* r = std::get_if<CoreRange>(&spec))
    return CoreRangeSet(*r);
  return std::get<CoreRangeSet>(spec);
}
KernelRecord& kernel_of(const Program& program, KernelHandle handle) {
  auto& ks = program.impl().kernels;
  if (handle >= ks.size())
    throw EmulatorError("unknown kernel handle " + std::to_string(handle));
  return ks[handle];
}
void set_args(KernelRecord& k, const CoreCoord& core, std::vector<std::uint32_t> args) {
  if (!k.cores.contains(core)) {
    throw EmulatorError("SetRuntimeArgs: core " + core.str() + " is not in the cores of kernel " +
                        k.path);
  }
  if (args.size() + k.common_args.size() > kMaxRuntimeArgs) {
    throw EmulatorError("SetRuntimeArgs: " + std::to_string(args.size()) + " runtime args (+" +
                        std::to_string(k.common_args.size()) + " common) for kernel " + k.path +
                        " on core " + core.str() + " exceed the limit of " +
                        std::to_string(kMaxRuntimeArgs));
  }
  auto& stored = k.runtime_args[core];
  stored = std::move(args);
  k.views[core] = RuntimeArgsData{stored.data(), stored.size()};
}
} // namespace

KernelHandle CreateKernel(Program& program, const std::string& file_name,
                          const std::variant<CoreCoord, CoreRange, CoreRangeSet>& core_spec,
                          const std::variant<DataMovementConfig, ComputeConfig>& config) {
  KernelRecord k;
  k.path = file_name;
  k.cores = to_set(core_spec);
  if (const auto* dm = std::get_if<DataMovementConfig>(&config))
    k.dm = *dm;
  else {
    k.compute = true;
    k.cc = std::get<ComputeConfig>(config);
    // The SDK's JIT build: TT_FATAL(unpack_to_dest_mode.size() >= buf_formats.size(), ...).
    if (!k.cc.unpack_to_dest_mode.empty() && k.cc.unpack_to_dest_mode.size() < NUM_CIRCULAR_BUFFERS)
      throw EmulatorError("CreateKernel: " + file_name + ": unpack_to_dest_mode vector must have " +
                          std::to_string(NUM_CIRCULAR_BUFFERS) + " elements");
  }
  auto& ks = program.impl().kernels;
  for (const auto& other : ks) {
    for (const auto& r : k.cores.ranges()) {
      if (!other.cores.intersects(r))
        continue;
      if (other.compute && k.compute) {
        throw EmulatorError("CreateKernel: " + file_name + " and " + other.path +
                            " are both compute kernels on " + r.str());
      }
      if (!other.compute && !k.compute && other.dm.processor == k.dm.processor) {
        throw EmulatorError("CreateKernel: " + file_name + " and " + other.path +
                            " both use RISCV_" + std::to_string(static_cast<int>(k.dm.processor)) +
                            " on " + r.str());
      }
    }
  }
  ks.push_back(std::move(k));
  return static_cast<KernelHandle>(ks.size() - 1);
}

CBHandle CreateCircularBuffer(Program& program,
                              const std::variant<CoreCoord, CoreRange, CoreRangeSet>& core_spec,
                              const CircularBufferConfig& config) {
  CbRecord rec;
  rec.formats = config.data_formats();
  rec.page_sizes = config.page_sizes();
  rec.total_size = config.total_size();
  rec.cores = to_set(core_spec);
  rec.global_address = config.globally_allocated_address();
  if (rec.global_address && rec.total_size > config.max_size()) {
    throw EmulatorError("CreateCircularBuffer: total size " + std::to_string(rec.total_size) +
                        " exceeds the " + std::to_string(config.max_size()) +
                        " bytes per core of its globally allocated buffer");
  }
  for (const auto& [index, format] : rec.formats) {
    if (!rec.page_sizes.count(index)) {
      throw EmulatorError("CreateCircularBuffer: " + cb_name(index) +
                          " has no page size (call set_page_size)");
    }
  }
  program.impl().cbs.push_back(std::move(rec));
  return program.impl().cbs.size();
}

std::uint32_t CreateSemaphore(Program& program,
                              const std::variant<CoreRange, CoreRangeSet>& core_spec,
                              std::uint32_t initial_value) {
  SemaphoreRecord s;
  s.cores = std::holds_alternative<CoreRange>(core_spec)
                ? CoreRangeSet(std::get<CoreRange>(core_spec))
                : std::get<CoreRangeSet>(core_spec);
  s.initial = initial_value;
  program.impl().semaphores.push_back(s);
  if (program.impl().semaphores.size() > 16)
    throw EmulatorError("CreateSemaphore: at most 16 semaphores per program");
  return static_cast<std::uint32_t>(program.impl().semaphores.size() - 1);
}

void SetRuntimeArgs(const Program& program, KernelHandle kernel,
                    const std::variant<CoreCoord, CoreRange, CoreRangeSet>& core_spec,
                    ttsl::Span<const std::uint32_t> runtime_args) {
  auto& k = kernel_of(program, kernel);
  const CoreRangeSet cores = to_set(core_spec);
  for (const auto& r : cores.ranges()) {
    for (const CoreCoord c : r)
      set_args(k, c, std::vector<std::uint32_t>(runtime_args.begin(), runtime_args.end()));
  }
}
void SetRuntimeArgs(const Program& program, KernelHandle kernel,
                    const std::variant<CoreCoord, CoreRange, CoreRangeSet>& core_spec,
                    std::initializer_list<std::uint32_t> runtime_args) {
  SetRuntimeArgs(program, kernel, core_spec,
                 ttsl::Span<const std::uint32_t>(runtime_args.begin(), runtime_args.size()));
}
void SetRuntimeArgs(const Program& program, KernelHandle kernel,
                    const std::vector<CoreCoord>& cores,
                    const std::vector<std::vector<std::uint32_t>>& runtime_args) {
  if (cores.size() != runtime_args.size()) {
    throw EmulatorError("SetRuntimeArgs: " + std::to_string(cores.size()) + " cores but " +
                        std::to_string(runtime_args.size()) + " argument lists");
  }
  auto& k = kernel_of(program, kernel);
  for (std::size_t i = 0; i < cores.size(); ++i)
    set_args(k, cores[i], runtime_args[i]);
}
void SetCommonRuntimeArgs(const Program& program, KernelHandle kernel,
                          ttsl::Span<const std::uint32_t> runtime_args) {
  auto& k = kernel_of(program, kernel);
  k.common_args.assign(runtime_args.begin(), runtime_args.end());
  k.common_view = RuntimeArgsData{k.common_args.data(), k.common_args.size()};
}
RuntimeArgsData& GetRuntimeArgs(const Program& program, KernelHandle kernel,
                                const CoreCoord& core) {
  auto& k = kernel_of(program, kernel);
  auto it = k.views.find(core);
  if (it == k.views.end())
    throw EmulatorError("GetRuntimeArgs: no runtime args set for " + k.path + " on core " +
                        core.str());
  return it->second;
}
RuntimeArgsData& GetCommonRuntimeArgs(const Program& program, KernelHandle kernel) {
  return kernel_of(program, kernel).common_view;
}
} // namespace tt::tt_metal

namespace tk::rt::emu {
namespace {
DeviceState* g_device = nullptr;

std::string core_str(const CoreCoord& c) {
  return "(" + std::to_string(c.x) + "," + std::to_string(c.y) + ")";
}

// Places the program's CBs and semaphores in the L1 of every core that uses them.
void layout_core(DeviceState& dev, const tt::tt_metal::detail::ProgramImpl& prog, CoreState& core) {
  for (const auto& rec : prog.cbs) {
    if (!rec.cores.contains(core.logical))
      continue;
    for (const auto& [index, format] : rec.formats) {
      auto& cb = core.cbs[index];
      if (cb.configured) {
        throw EmulatorError("core " + core_str(core.logical) + ": " + cb_name(index) +
                            " is configured twice");
      }
      cb.configured = true;
      cb.id = index;
      cb.address = rec.address;
      cb.page_size = rec.page_sizes.at(index);
      cb.num_pages = rec.total_size / cb.page_size;
      cb.format = format;
      const std::uint32_t end = rec.address + rec.total_size;
      if (!rec.global_address && end > dev.l1_bottom) {
        throw EmulatorError(
            "core " + core_str(core.logical) + ": circular buffer " + cb_name(index) + " (" +
            std::to_string(rec.total_size) + " B at " + hex(rec.address) + ") ends at " + hex(end) +
            ", beyond the L1 budget (CBs may use " + hex(dev.arch.first_free_l1_address()) + ".." +
            hex(dev.l1_bottom) + ", " +
            std::to_string(dev.l1_bottom - dev.arch.first_free_l1_address()) + " B)");
      }
    }
  }
  for (std::size_t i = 0; i < prog.semaphores.size(); ++i) {
    if (!prog.semaphores[i].cores.contains(core.logical))
      continue;
    const std::uint32_t v = prog.semaphores[i].initial;
    std::memcpy(core.l1 + dev.semaphore_base() + i * dev.arch.l1_alignment, &v, 4);
  }
  core.num_semaphores = static_cast<std::uint32_t>(prog.semaphores.size());
}

void assign_cb_addresses(tt::tt_metal::detail::ProgramImpl& prog, const DeviceState& dev) {
  std::map<CoreCoord, std::uint32_t> top;
  for (auto& rec : prog.cbs) {
    // program.cpp and circular_buffer_config.cpp: an index past the HAL's
    // get_arch_num_circular_buffers is refused.
    for (const auto& [index, format] : rec.formats)
      if (!cb_in_range(dev.arch, index))
        throw EmulatorError("EnqueueMeshWorkload: " + cb_out_of_range(dev.arch, index));
    if (rec.global_address) { // in its L1 buffer: takes no CB space
      rec.address = *rec.global_address;
      continue;
    }
    const std::uint32_t first = dev.arch.first_free_l1_address();
    std::uint32_t addr = first;
    for (const auto& r : rec.cores.ranges())
      for (const CoreCoord c : r)
        addr = std::max(addr, top.count(c) ? top[c] : first);
    rec.address = addr;
    for (const auto& r : rec.cores.ranges())
      for (const CoreCoord c : r) {
        if (c.x >= dev.grid.x || c.y >= dev.grid.y) {
          throw EmulatorError("CreateCircularBuffer: core " + c.str() +
                              " is outside the worker grid");
        }
        const std::uint32_t align = dev.arch.l1_alignment;
        top[c] = (addr + rec.total_size + align - 1) / align * align;
      }
  }
}

bool same_cbs(const CoreState& a, const CoreState& b) {
  for (std::uint32_t i = 0; i < tk::arch::kMaxCircularBuffers; ++i) {
    const CbState &x = a.cbs[i], &y = b.cbs[i];
    if (x.configured != y.configured || x.page_size != y.page_size || x.format != y.format)
      return false;
  }
  return true;
}

// Compiles (or loads) each distinct kernel build once, the distinct ones in parallel like the SDK's
// JIT; cores whose CB formats match share a build.
void load_entries(std::vector<std::unique_ptr<Fiber>>& fibers) {
  std::vector<Fiber*> firsts;
  std::vector<Fiber*> owner(fibers.size(), nullptr);
  for (std::size_t i = 0; i < fibers.size(); ++i) {
    Fiber* f = fibers[i].get();
    for (Fiber* g : firsts) {
      if (g->kernel == f->kernel && same_cbs(*g->core, *f->core))
        owner[i] = g;
    }
    if (owner[i] == nullptr) {
      firsts.push_back(f);
      owner[i] = f;
    }
  }
  std::vector<std::future<EntryFn>> jobs;
  for (Fiber* f : firsts)
    jobs.push_back(
        std::async(std::launch::async, [f] { return load_kernel(*f->kernel, *f->core); }));
  std::string errors;
  for (std::size_t i = 0; i < firsts.size(); ++i) {
    try {
      firsts[i]->entry = jobs[i].get();
    } catch (const std::exception& e) {
      if (errors.find(e.what()) == std::string::npos)
        errors += (errors.empty() ? "" : "\n") + std::string(e.what());
    }
  }
  if (!errors.empty())
    throw EmulatorError(errors);
  for (std::size_t i = 0; i < fibers.size(); ++i)
    fibers[i]->entry = owner[i]->entry;
}

void run_program(DeviceState& dev, tt::tt_metal::Program& program) {
  auto& prog = program.impl();
  assign_cb_addresses(prog, dev);
  std::map<CoreCoord, std::unique_ptr<CoreState>> cores; // ordered by (x, y)
  for (const auto& k : prog.kernels) {
    for (const auto& r : k.cores.ranges())
      for (const CoreCoord c : r) {
        if (c.x >= dev.grid.x || c.y >= dev.grid.y) {
          throw EmulatorError("CreateKernel: " + k.path + " is placed on core " + c.str() +
                              ", outside the " + std::to_string(dev.grid.x) + "x" +
                              std::to_string(dev.grid.y) + " worker grid");
        }
        if (cores.count(c))
          continue;
        auto core = std::make_unique<CoreState>();
        core->logical = c;
        core->noc = dev.worker_noc(c);
        core->index = dev.core_index(c);
        core->l1 = dev.l1(core->index);
        core->noc_x = {static_cast<std::uint8_t>(core->noc.x),
                       static_cast<std::uint8_t>(core->noc.x)};
        core->noc_y = {static_cast<std::uint8_t>(core->noc.y),
                       static_cast<std::uint8_t>(core->noc.y)};
        cores.emplace(c, std::move(core));
      }
  }
  for (auto& [c, core] : cores)
    layout_core(dev, prog, *core);

  // Row-major core order (y, then x), kernels in creation order.
  std::vector<CoreState*> order;
  for (auto& [c, core] : cores)
    order.push_back(core.get());
  std::sort(order.begin(), order.end(), [](const CoreState* a, const CoreState* b) {
    return a->logical.y != b->logical.y ? a->logical.y < b->logical.y : a->logical.x < b->logical.x;
  });
  static const std::vector<std::uint32_t> no_args;
  // A core's kernel group is the cores that run the same kernels; the dispatcher gives each core
  // of a group, for each kernel, as many runtime-arg slots as the group's core given the most
  // (tt_metal/impl/program/dispatch.cpp, configure_rta_offsets_for_kernel_groups: max_rtas).
  const auto kernels_on = [&](const CoreCoord& c) {
    std::vector<bool> on;
    for (const auto& k : prog.kernels)
      on.push_back(k.cores.contains(c));
    return on;
  };
  std::vector<std::unique_ptr<Fiber>> fibers;
  for (CoreState* core : order) {
    const std::vector<bool> group = kernels_on(core->logical);
    for (const auto& k : prog.kernels) {
      if (!k.cores.contains(core->logical))
        continue;
      auto f = std::make_unique<Fiber>();
      f->core = core;
      f->kernel = &k;
      auto it = k.runtime_args.find(core->logical);
      f->args = it == k.runtime_args.end() ? &no_args : &it->second;
      for (const auto& [c, args] : k.runtime_args)
        if (args.size() > f->arg_slots && kernels_on(c) == group)
          f->arg_slots = args.size();
      fibers.push_back(std::move(f));
    }
  }
  load_entries(fibers);
  dev.launch_cores.assign(dev.num_cores(), nullptr);
  for (CoreState* core : order)
    dev.launch_cores[core->index] = core;
  struct Clear {
    DeviceState& d;
    ~Clear() { d.launch_cores.clear(); }
  } clear{dev};
  begin_math_launch();
  begin_watcher_launch();
  timing::begin(dev);
  try {
    run_fibers(fibers);
  } catch (...) {
    timing::abandon();
    throw;
  }
  std::vector<Fiber*> ran;
  for (auto& f : fibers)
    ran.push_back(f.get());
  timing::end(ran, dev);
}
} // namespace

DeviceState& active_device() {
  return *g_device;
}
void set_active_device(DeviceState* device) {
  g_device = device;
}
} // namespace tk::rt::emu

namespace tt::tt_metal::distributed {
void EnqueueMeshWorkload(MeshCommandQueue& cq, MeshWorkload& mesh_workload, bool /*blocking*/) {
  if (cq.trace_id()) { // captured into the trace, run at its replay
    cq.captured_.push_back(&mesh_workload);
    return;
  }
  struct Reset {
    ~Reset() { tk::rt::emu::set_active_device(nullptr); }
  } reset;
  // Each device of the mesh runs the programs whose range holds it, one device after another
  // (devices share nothing but the host, so the order does not show).
  MeshDevice& mesh = *cq.device();
  for (const MeshCoordinate& coord : MeshCoordinateRange(mesh.shape())) {
    auto& dev = *mesh.state(coord);
    tk::rt::emu::set_active_device(&dev);
    for (auto& [range, program] : mesh_workload.get_programs()) {
      if (range.contains(coord))
        tk::rt::emu::run_program(dev, program);
    }
  }
}
void Finish(MeshCommandQueue& mesh_cq, ttsl::Span<const SubDeviceId> sub_device_ids) {
  mesh_cq.finish(sub_device_ids);
}
} // namespace tt::tt_metal::distributed
