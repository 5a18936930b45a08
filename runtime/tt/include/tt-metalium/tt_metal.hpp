// tt_metal/api/tt-metalium/tt_metal.hpp as far as the emulator has it: the headers it includes
// (buffers, core coordinates, the mesh device, TT_FATAL/TT_THROW). Its detail:: functions for
// slow dispatch are not mirrored.
#pragma once
#include <stdint.h>

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <hostdevcommon/common_values.hpp>
#include <tt-metalium/buffer.hpp>
#include <tt-metalium/core_coord.hpp>
#include <tt-metalium/mesh_device.hpp>
#include <tt_stl/assert.hpp>
