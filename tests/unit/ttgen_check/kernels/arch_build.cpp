// ttgen check --arch: the architecture's build defines reach the kernel as the SDK's JIT passes
// them (the firmware define; NUM_DRAM_BANKS, 12 on the n150, 8 on the P150: docs/arch.md).
// -DEXPECT_WORMHOLE or -DEXPECT_BLACKHOLE says which build the test expects.
#include "api/dataflow/dataflow_api.h"

#if defined(EXPECT_WORMHOLE) && (!defined(ARCH_WORMHOLE) || NUM_DRAM_BANKS != 12)
#error "not the n150's build"
#endif
#if defined(EXPECT_BLACKHOLE) && (!defined(ARCH_BLACKHOLE) || NUM_DRAM_BANKS != 8)
#error "not the P150's build"
#endif

void kernel_main() {}
