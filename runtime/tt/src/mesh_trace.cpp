// Traces, events and sub-devices of a mesh device. The emulator runs each command to completion
// before the call that enqueues it returns, in program order, so events order nothing that is not
// already ordered; a trace records the workloads enqueued on its queue during capture (the SDK
// records their dispatch commands and the device does not run them, tt_metal/distributed/
// mesh_trace.cpp) and a replay runs them again in that order; sub-devices partition the worker
// cores (tt_metal/impl/sub_device/sub_device_manager.cpp checks they do not overlap).
#include <algorithm>

#include <tt-metalium/distributed.hpp>

#include "state.hpp"

namespace tt::tt_metal {
using tk::rt::emu::EmulatorError;

SubDevice::SubDevice(ttsl::Span<const CoreRangeSet> cores) {
  if (cores.size() > NumHalProgrammableCoreTypes)
    throw EmulatorError("SubDevice: " + std::to_string(cores.size()) + " core sets for " +
                        std::to_string(NumHalProgrammableCoreTypes) +
                        " kinds of programmable cores");
  for (std::size_t i = 0; i < cores.size(); ++i)
    cores_[i] = cores[i];
  for (std::size_t i = 1; i < cores.size(); ++i)
    if (cores_[i].num_cores() != 0)
      throw EmulatorError("SubDevice: the emulator has Tensix cores only (no Ethernet cores)");
}

const CoreRangeSet& SubDevice::cores(HalProgrammableCoreType core_type) const {
  return cores_[static_cast<std::size_t>(core_type)];
}
} // namespace tt::tt_metal

namespace tt::tt_metal::distributed {
using tk::rt::emu::EmulatorError;

void MeshCommandQueue::check_not_capturing(const char* what) const {
  if (trace_id_)
    throw EmulatorError(std::string(what) + " not supported during trace capture.");
}

MeshEvent MeshCommandQueue::enqueue_record_event(ttsl::Span<const SubDeviceId>,
                                                 const std::optional<MeshCoordinateRange>& range) {
  check_not_capturing("Event Synchronization is");
  return MeshEvent(next_event_id_++, mesh_device_, id_,
                   range.value_or(MeshCoordinateRange(mesh_device_->shape())));
}
MeshEvent
MeshCommandQueue::enqueue_record_event_to_host(ttsl::Span<const SubDeviceId> sub_device_ids,
                                               const std::optional<MeshCoordinateRange>& range) {
  return enqueue_record_event(sub_device_ids, range);
}
void MeshCommandQueue::enqueue_wait_for_event(const MeshEvent& sync_event) {
  check_not_capturing("Event Synchronization is");
  if (sync_event.device() != mesh_device_)
    throw EmulatorError("enqueue_wait_for_event: the event was recorded on another MeshDevice");
}

void EventSynchronize(const MeshEvent&) {}
bool EventQuery(const MeshEvent&) {
  return true;
}
void Synchronize(MeshDevice* device, std::optional<uint8_t> cq_id,
                 ttsl::Span<const SubDeviceId> sub_device_ids) {
  if (cq_id) {
    device->mesh_command_queue(cq_id).finish(sub_device_ids);
    return;
  }
  for (std::size_t i = 0; i < device->num_hw_cqs(); ++i)
    device->mesh_command_queue(static_cast<uint8_t>(i)).finish(sub_device_ids);
}

MeshTraceId BeginTraceCapture(MeshDevice* device, uint8_t cq_id) {
  return device->begin_mesh_trace(cq_id);
}

MeshTraceId MeshDevice::begin_mesh_trace(uint8_t cq_id) {
  const MeshTraceId id(next_trace_id_++);
  begin_mesh_trace(cq_id, id);
  return id;
}
void MeshDevice::begin_mesh_trace(uint8_t cq_id, const MeshTraceId& trace_id) {
  MeshCommandQueue& cq = mesh_command_queue(cq_id);
  if (cq.trace_id_)
    throw EmulatorError("begin_mesh_trace: command queue " + std::to_string(cq_id) +
                        " is already capturing trace " + std::to_string(**cq.trace_id_));
  if (traces_.count(trace_id))
    throw EmulatorError("begin_mesh_trace: trace " + std::to_string(*trace_id) + " already exists");
  cq.trace_id_ = trace_id;
  cq.captured_.clear();
}
void MeshDevice::end_mesh_trace(uint8_t cq_id, const MeshTraceId& trace_id) {
  MeshCommandQueue& cq = mesh_command_queue(cq_id);
  if (!cq.trace_id_ || *cq.trace_id_ != trace_id)
    throw EmulatorError("end_mesh_trace: command queue " + std::to_string(cq_id) +
                        " is not capturing trace " + std::to_string(*trace_id));
  // The SDK writes the captured commands into the trace region (mesh_trace.cpp).
  if (trace_region_size_ == 0)
    throw EmulatorError("Creating trace buffers on MeshDevice " + std::to_string(id_) +
                        ", but only 0B is allocated for trace region.");
  traces_[trace_id] = std::move(cq.captured_);
  cq.captured_.clear();
  cq.trace_id_.reset();
}
void MeshDevice::replay_mesh_trace(uint8_t cq_id, const MeshTraceId& trace_id, bool blocking) {
  MeshCommandQueue& cq = mesh_command_queue(cq_id);
  cq.check_not_capturing("Trace replay is");
  const auto it = traces_.find(trace_id);
  if (it == traces_.end())
    throw EmulatorError("replay_mesh_trace: trace " + std::to_string(*trace_id) +
                        " was not captured or was released");
  for (MeshWorkload* workload : it->second)
    EnqueueMeshWorkload(cq, *workload, blocking);
}
void MeshDevice::release_mesh_trace(const MeshTraceId& trace_id) {
  if (traces_.erase(trace_id) == 0)
    throw EmulatorError("release_mesh_trace: trace " + std::to_string(*trace_id) +
                        " does not exist");
}

SubDeviceManagerId
MeshDevice::create_sub_device_manager(std::initializer_list<SubDevice> sub_devices,
                                      DeviceAddr local_l1_size) {
  return create_sub_device_manager(
      ttsl::Span<const SubDevice>(sub_devices.begin(), sub_devices.size()), local_l1_size);
}
SubDeviceManagerId MeshDevice::create_sub_device_manager(ttsl::Span<const SubDevice> sub_devices,
                                                         DeviceAddr local_l1_size) {
  const CoreCoord grid = compute_with_storage_grid_size();
  std::vector<CoreCoord> used;
  for (const SubDevice& sd : sub_devices)
    for (const CoreRange& r : sd.cores(HalProgrammableCoreType::TENSIX).ranges())
      for (const CoreCoord c : r) {
        if (c.x >= grid.x || c.y >= grid.y)
          throw EmulatorError("create_sub_device_manager: core " + c.str() +
                              " is outside the worker grid " + grid.str());
        if (std::find(used.begin(), used.end(), c) != used.end())
          throw EmulatorError("create_sub_device_manager: core " + c.str() +
                              " is in two sub-devices");
        used.push_back(c);
      }
  if (local_l1_size > l1_size_per_core())
    throw EmulatorError("create_sub_device_manager: local L1 size " +
                        std::to_string(local_l1_size) + " exceeds the L1 of a core");
  const SubDeviceManagerId id(next_manager_id_++);
  sub_device_managers_.emplace(id, std::vector<SubDevice>(sub_devices.begin(), sub_devices.end()));
  std::vector<SubDeviceId> ids;
  for (std::size_t i = 0; i < sub_devices.size(); ++i)
    ids.emplace_back(static_cast<uint8_t>(i));
  sub_device_ids_[id] = std::move(ids);
  return id;
}
void MeshDevice::remove_sub_device_manager(SubDeviceManagerId id) {
  if (id == active_manager_)
    throw EmulatorError("Cannot remove active sub-device manager " + std::to_string(*id));
  if (sub_device_managers_.erase(id) == 0)
    throw EmulatorError("Sub-device manager " + std::to_string(*id) + " does not exist");
  sub_device_ids_.erase(id);
}
void MeshDevice::load_sub_device_manager(SubDeviceManagerId id) {
  if (id != get_default_sub_device_manager_id() && !sub_device_managers_.count(id))
    throw EmulatorError("Sub-device manager " + std::to_string(*id) + " does not exist");
  active_manager_ = id;
}
void MeshDevice::clear_loaded_sub_device_manager() {
  active_manager_ = get_default_sub_device_manager_id();
}
const std::vector<SubDeviceId>& MeshDevice::get_sub_device_ids() const {
  static const std::vector<SubDeviceId> whole_grid{SubDeviceId{0}};
  const auto it = sub_device_ids_.find(active_manager_);
  return it == sub_device_ids_.end() ? whole_grid : it->second;
}
} // namespace tt::tt_metal::distributed
