// Everything generated CPU code calls: the thread pool, tiles, reductions/broadcasts, the matmul,
// the bfp8 rounding of inputs.
#pragma once

#include <tilekit/cpu/bfp8.hpp>
#include <tilekit/cpu/gemm.hpp>
#include <tilekit/cpu/thread_pool.hpp>
#include <tilekit/cpu/tile.hpp>
#include <tilekit/runtime.hpp>
