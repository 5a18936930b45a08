// libtilekit_cpu.so: TileKit's CPU runtime (tk_runtime and tk_cpu_runtime, linked in whole by
// python/CMakeLists.txt) as one shared library. Every kernel library tilekit.compile builds links
// against it, so the kernels of a Python process share one copy: one thread pool, one set of
// shape checks. This file only gives the library a translation unit of its own.
#include <tilekit/runtime.hpp>
