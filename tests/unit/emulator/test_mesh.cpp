// Meshes (docs/emulator.md, "Meshes"): a 2x4 MeshDevice whose eight devices each have their own
// DRAM and cores; sharded and replicated MeshBuffers laid out as the SDK lays them out
// (tt_metal/distributed/mesh_command_queue_base.cpp), WriteShard / ReadShard, and workloads on the
// whole mesh or part of it.
#include <tk_emulator/emulator.hpp>

#include "emu_program.hpp"

using namespace tk::test;
using namespace tt::tt_metal::distributed;

namespace {
constexpr uint32_t kRows = 2, kCols = 4;

std::shared_ptr<MeshDevice> open_t3000() {
  return MeshDevice::create(MeshDeviceConfig(MeshShape(kRows, kCols)));
}

// A (2 * 32) x (4 * 32) bf16 array cut into 32x32 shards: one tile per device, in DRAM.
std::shared_ptr<MeshBuffer> sharded(MeshDevice& mesh, ShardOrientation orientation) {
  return MeshBuffer::create(
      ShardedBufferConfig{.global_size = kRows * kCols * kBf16Tile,
                          .global_buffer_shape = {kRows * 32, kCols * 32},
                          .shard_shape = {32, 32},
                          .shard_orientation = orientation},
      DeviceLocalBufferConfig{.page_size = kBf16Tile, .buffer_type = BufferType::DRAM}, &mesh);
}

// Element (r, c) of the global array: distinct in every position.
std::vector<bfloat16> global_array() {
  std::vector<bfloat16> v(kRows * 32 * kCols * 32);
  for (uint32_t r = 0; r < kRows * 32; ++r)
    for (uint32_t c = 0; c < kCols * 32; ++c)
      v[r * kCols * 32 + c] = bfloat16::from_bits(static_cast<uint16_t>(r * 256 + c));
  return v;
}

// The 32x32 block of the global array at block row `by`, block column `bx`, row-major.
std::vector<bfloat16> block(const std::vector<bfloat16>& g, uint32_t by, uint32_t bx) {
  std::vector<bfloat16> b;
  for (uint32_t r = 0; r < 32; ++r)
    for (uint32_t c = 0; c < 32; ++c)
      b.push_back(g[(by * 32 + r) * kCols * 32 + bx * 32 + c]);
  return b;
}

// The copy program (Device 2.0 reader and writer) of one tile from `in` to `out` on core (0, 0).
Program copy_program(const std::shared_ptr<MeshBuffer>& in,
                     const std::shared_ptr<MeshBuffer>& out) {
  Program program = CreateProgram();
  const tt::tt_metal::CoreCoord core{0, 0};
  CreateCircularBuffer(
      program, core,
      CircularBufferConfig(2 * kBf16Tile, {{tt::CBIndex::c_0, tt::DataFormat::Float16_b}})
          .set_page_size(tt::CBIndex::c_0, kBf16Tile));
  std::vector<uint32_t> in_args, out_args;
  TensorAccessorArgs(*in->get_reference_buffer()).append_to(in_args);
  TensorAccessorArgs(*out->get_reference_buffer()).append_to(out_args);
  auto r = CreateKernel(program, kernel("sdk/d2_read.cpp"), core,
                        DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                           .noc = NOC::RISCV_1_default,
                                           .compile_args = in_args});
  auto w = CreateKernel(program, kernel("sdk/d2_write.cpp"), core,
                        DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                           .noc = NOC::RISCV_0_default,
                                           .compile_args = out_args});
  SetRuntimeArgs(program, r, core, {static_cast<uint32_t>(in->address()), 1u});
  SetRuntimeArgs(program, w, core, {static_cast<uint32_t>(out->address()), 1u});
  return program;
}

} // namespace

TEST(EmulatorMesh, ShapeAndDevices) {
  auto mesh = open_t3000();
  EXPECT_EQ(mesh->num_devices(), 8u);
  EXPECT_EQ(mesh->num_rows(), 2u);
  EXPECT_EQ(mesh->num_cols(), 4u);
  EXPECT_TRUE(mesh->is_local(MeshCoordinate(1, 3)));
  EXPECT_FALSE(mesh->is_local(MeshCoordinate(2, 0)));
  std::vector<std::pair<uint32_t, uint32_t>> visited;
  for (const MeshCoordinate& c : MeshCoordinateRange(mesh->shape()))
    visited.emplace_back(c[0], c[1]);
  const std::vector<std::pair<uint32_t, uint32_t>> row_major = {{0, 0}, {0, 1}, {0, 2}, {0, 3},
                                                                {1, 0}, {1, 1}, {1, 2}, {1, 3}};
  EXPECT_EQ(visited, row_major);
}

// Shard (y, x) of a row-major sharded buffer lives on device (y, x) (4 shards a row, 4 devices a
// row); a column-major one fills device columns first, so shard k goes to device (k % 2, k / 2).
TEST(EmulatorMesh, ShardedBufferLaysShardsOutAsTheSdk) {
  auto mesh = open_t3000();
  auto& cq = mesh->mesh_command_queue();
  const std::vector<bfloat16> g = global_array();
  for (const auto orientation : {ShardOrientation::ROW_MAJOR, ShardOrientation::COL_MAJOR}) {
    auto buf = sharded(*mesh, orientation);
    EXPECT_EQ(buf->size(), kRows * kCols * kBf16Tile);
    EXPECT_EQ(buf->device_local_size(), kBf16Tile);
    EXPECT_EQ(buf->get_device_buffer(MeshCoordinate(1, 2))->size(), kBf16Tile);
    EnqueueWriteMeshBuffer(cq, buf, g, false);
    for (uint32_t k = 0; k < kRows * kCols; ++k) {
      const uint32_t by = k / kCols, bx = k % kCols; // shard k in host order
      const MeshCoordinate dev = orientation == ShardOrientation::ROW_MAJOR
                                     ? MeshCoordinate(k / kCols, k % kCols)
                                     : MeshCoordinate(k % kRows, k / kRows);
      std::vector<bfloat16> shard;
      ReadShard(cq, shard, buf, dev, true);
      ASSERT_EQ(shard, block(g, by, bx)) << "shard " << k;
    }
    std::vector<bfloat16> back;
    EnqueueReadMeshBuffer(cq, back, buf, true);
    ASSERT_EQ(back, g);
  }
}

// Every device runs the workload on its own DRAM: each copies its own shard, written with
// WriteShard; a workload on row 1 only leaves row 0's output untouched.
TEST(EmulatorMesh, WorkloadRunsOnEachDeviceOfItsRange) {
  auto mesh = open_t3000();
  auto& cq = mesh->mesh_command_queue();
  auto in = sharded(*mesh, ShardOrientation::ROW_MAJOR);
  auto out = sharded(*mesh, ShardOrientation::ROW_MAJOR);
  std::vector<std::vector<bfloat16>> shards;
  for (const MeshCoordinate& c : MeshCoordinateRange(mesh->shape())) {
    shards.push_back(random_bf16(1024, -4.0f, 4.0f, 17 + c[0] * kCols + c[1]));
    WriteShard(cq, in, shards.back(), c, false);
  }
  MeshWorkload row1;
  row1.add_program(MeshCoordinateRange(MeshCoordinate(1, 0), MeshCoordinate(1, kCols - 1)),
                   copy_program(in, out));
  EnqueueMeshWorkload(cq, row1, false);
  Finish(cq);
  std::size_t i = 0;
  for (const MeshCoordinate& c : MeshCoordinateRange(mesh->shape())) {
    std::vector<bfloat16> got;
    ReadShard(cq, got, out, c, true);
    if (c[0] == 1)
      ASSERT_EQ(got, shards[i]) << "device (" << c[0] << ", " << c[1] << ")";
    else
      ASSERT_EQ(got, std::vector<bfloat16>(1024, bfloat16(0.0f))) << "device (0, " << c[1] << ")";
    ++i;
  }
  MeshWorkload all;
  all.add_program(MeshCoordinateRange(mesh->shape()), copy_program(in, out));
  EnqueueMeshWorkload(cq, all, true);
  i = 0;
  for (const MeshCoordinate& c : MeshCoordinateRange(mesh->shape())) {
    std::vector<bfloat16> got;
    ReadShard(cq, got, out, c, true);
    ASSERT_EQ(got, shards[i++]) << "device (" << c[0] << ", " << c[1] << ")";
  }
}

// A replicated buffer is written to every device; reading it whole needs a unit mesh, as in the
// SDK.
TEST(EmulatorMesh, ReplicatedBufferIsOnEveryDevice) {
  auto mesh = open_t3000();
  auto& cq = mesh->mesh_command_queue();
  auto buf = MeshBuffer::create(
      ReplicatedBufferConfig{.size = 2 * kBf16Tile},
      DeviceLocalBufferConfig{.page_size = kBf16Tile, .buffer_type = BufferType::L1}, mesh.get());
  const std::vector<bfloat16> data = random_bf16(2048, -1.0f, 1.0f, 5);
  EnqueueWriteMeshBuffer(cq, buf, data, false);
  for (const MeshCoordinate& c : MeshCoordinateRange(mesh->shape())) {
    std::vector<bfloat16> got;
    ReadShard(cq, got, buf, c, true);
    ASSERT_EQ(got, data) << "device (" << c[0] << ", " << c[1] << ")";
  }
  std::vector<bfloat16> whole;
  try {
    EnqueueReadMeshBuffer(cq, whole, buf, true);
    FAIL() << "read a replicated buffer whole from a 2x4 mesh";
  } catch (const tk::rt::emu::EmulatorError& e) {
    EXPECT_STREQ(e.what(), "Can only read a Sharded MeshBuffer from a MeshDevice or a Replicated "
                           "MeshBuffer from a Unit-Mesh.");
  }
}

TEST(EmulatorMesh, ShardsThatDoNotFitTheMeshAreRejected) {
  auto mesh = MeshDevice::create(MeshDeviceConfig(MeshShape(1, 2)));
  try {
    sharded(*mesh, ShardOrientation::ROW_MAJOR); // 8 shards on an n300's 2 devices
    FAIL() << "8 shards on 2 devices";
  } catch (const tk::rt::emu::EmulatorError& e) {
    EXPECT_STREQ(e.what(), "MeshBuffer::create: 8 shards do not fit on a mesh of 2 devices");
  }
}

namespace {
// The message of the EmulatorError f() throws ("" if none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const tk::rt::emu::EmulatorError& e) {
    return e.what();
  }
  return "";
}
} // namespace

// Traces and events as tt-metal's distributed_trace_and_events example uses them: a trace
// captured on CQ 0 records the workload without running it (the output stays 0), inputs written
// on CQ 1 afterwards, CQ 0 waiting for CQ 1's event, a replay runs it (the output is the input),
// and a second replay after new inputs runs it again. No writes during capture; no replay of a
// released trace.
TEST(EmulatorMesh, TraceCapturesWorkloadsAndReplaysThem) {
  auto mesh = MeshDevice::create(MeshDeviceConfig(MeshShape(kRows, kCols)), 0, 1 << 20, 2,
                                 tt::tt_metal::DispatchCoreType::ETH);
  auto& workload_cq = mesh->mesh_command_queue(0);
  auto& io_cq = mesh->mesh_command_queue(1);
  auto in = sharded(*mesh, ShardOrientation::ROW_MAJOR);
  auto out = sharded(*mesh, ShardOrientation::ROW_MAJOR);
  const std::vector<bfloat16> zeros(kRows * kCols * 1024, bfloat16(0.0f));
  EnqueueWriteMeshBuffer(io_cq, out, zeros, false);
  MeshWorkload copy;
  copy.add_program(MeshCoordinateRange(mesh->shape()), copy_program(in, out));

  const MeshTraceId trace = BeginTraceCapture(mesh.get(), 0);
  EnqueueMeshWorkload(workload_cq, copy, false);
  EXPECT_EQ(error_of([&] { EnqueueWriteMeshBuffer(workload_cq, in, zeros, false); }),
            "Writes are not supported during trace capture.");
  mesh->end_mesh_trace(0, trace);
  std::vector<bfloat16> got;
  EnqueueReadMeshBuffer(io_cq, got, out, true);
  ASSERT_EQ(got, zeros) << "the captured workload ran during capture";

  for (unsigned seed : {3u, 4u}) {
    const std::vector<bfloat16> g = random_bf16(kRows * kCols * 1024, -8.0f, 8.0f, seed);
    EnqueueWriteMeshBuffer(io_cq, in, g, false);
    const MeshEvent written = io_cq.enqueue_record_event();
    EXPECT_EQ(written.mesh_cq_id(), 1u);
    workload_cq.enqueue_wait_for_event(written);
    mesh->replay_mesh_trace(0, trace, false);
    const MeshEvent done = workload_cq.enqueue_record_event();
    io_cq.enqueue_wait_for_event(done);
    EventSynchronize(done);
    EXPECT_TRUE(EventQuery(done));
    EnqueueReadMeshBuffer(io_cq, got, out, true);
    ASSERT_EQ(got, g) << "replay with inputs of seed " << seed;
  }
  mesh->release_mesh_trace(trace);
  EXPECT_EQ(error_of([&] { mesh->replay_mesh_trace(0, trace, true); }),
            "replay_mesh_trace: trace 0 was not captured or was released");
  EXPECT_EQ(error_of([&] { mesh->mesh_command_queue(2); }),
            "command queue 2 does not exist: the device has 2 (num_command_queues at create)");
}

// A trace needs a trace region (trace_region_size at create), as in the SDK's mesh_trace.cpp.
TEST(EmulatorMesh, TraceWithoutATraceRegionIsRejected) {
  auto mesh = open_t3000();
  const MeshTraceId trace = BeginTraceCapture(mesh.get(), 0);
  EXPECT_EQ(error_of([&] { mesh->end_mesh_trace(0, trace); }),
            "Creating trace buffers on MeshDevice 0, but only 0B is allocated for trace region.");
}

// Sub-devices: disjoint sets of worker cores, each program on one of them.
TEST(EmulatorMesh, SubDevicesPartitionTheWorkerCores) {
  auto mesh = open_t3000();
  const SubDevice a(std::array{CoreRangeSet(CoreRange({0, 0}, {0, 0}))});
  const SubDevice b(std::array{CoreRangeSet(CoreRange({1, 1}, {1, 1}))});
  EXPECT_EQ(mesh->num_sub_devices(), 1u);
  const auto manager = mesh->create_sub_device_manager({a, b}, 3200);
  mesh->load_sub_device_manager(manager);
  EXPECT_EQ(mesh->get_active_sub_device_manager_id(), manager);
  EXPECT_EQ(mesh->num_sub_devices(), 2u);
  EXPECT_EQ(*mesh->get_sub_device_ids()[1], 1u);
  EXPECT_EQ(b.cores(tt::tt_metal::HalProgrammableCoreType::TENSIX).num_cores(), 1u);
  const SubDevice overlap(std::array{CoreRangeSet(CoreRange({0, 0}, {1, 1}))});
  EXPECT_EQ(error_of([&] { mesh->create_sub_device_manager({a, overlap}, 0); }),
            "create_sub_device_manager: core (x=0,y=0) is in two sub-devices");
  mesh->clear_loaded_sub_device_manager();
  EXPECT_EQ(mesh->num_sub_devices(), 1u);
}
