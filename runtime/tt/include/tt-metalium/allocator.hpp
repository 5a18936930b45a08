// tt_metal/api/tt-metalium/allocator.hpp as far as the emulator has it: the headers it includes.
// Its Allocator class is not mirrored.
#pragma once
#include <cstdint>
#include <unordered_set>
#include <vector>

#include <tt-metalium/buffer_types.hpp>
#include <tt-metalium/core_coord.hpp>
