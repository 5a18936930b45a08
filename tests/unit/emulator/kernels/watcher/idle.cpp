// Does nothing: a second kernel on a core puts that core in a kernel group of its own.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {}
