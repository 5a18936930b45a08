// ASSERT (mirrors tt_metal/hw/inc/api/debug/assert.h): the SDK's kernels assert only under the
// watcher (WATCHER_ENABLED) or LIGHTWEIGHT_KERNEL_ASSERTS; in the default build, which the emulator
// mirrors, ASSERT expands to nothing and ASSERT_ENABLED is 0.
#pragma once

#define ASSERT(condition, ...)
#define ASSERT_ENABLED 0
#define WATCHER_ASSERT_ENABLED 0
#define LIGHTWEIGHT_ASSERT_ENABLED 0
