// tt_metal/api/tt-metalium/device.hpp as far as the emulator has it: the headers it makes reachable
// (the common values and kernel structs it leaks to programming examples, core coordinates). The
// SDK's IDevice interface is not mirrored: programs reach a device through MeshDevice.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <hostdevcommon/common_values.hpp>
#include <hostdevcommon/kernel_structs.h>
#include <tt-metalium/core_coord.hpp>
