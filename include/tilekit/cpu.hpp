// Everything generated CPU code calls: the thread pool, tiles, reductions/broadcasts, the matmul.
#pragma once

#include <tilekit/cpu/gemm.hpp>
#include <tilekit/cpu/thread_pool.hpp>
#include <tilekit/cpu/tile.hpp>
#include <tilekit/runtime.hpp>
