// Softmax's compute API (mirrors tt_metal/hw/inc/api/compute/softmax.h): the SDK's header is the
// exponential and reciprocal tile operations.
#pragma once

#include "api/compute/eltwise_unary/exp.h"
#include "api/compute/eltwise_unary/recip.h"
