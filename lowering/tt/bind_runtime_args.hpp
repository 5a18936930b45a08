// bind-runtime-args (D2): afterwards the reader, compute and writer functions take no parameters.
// Each reads its values with `let x: T = get_arg_val(n)`, in the order: tensor addresses
// (`<T>_addr`, tensor order), the leading lets that depend only on sizes (`Kt`, moved to the host
// plan and passed in), sizes read directly, scalars as f32 bit patterns (`alpha_bits`), then the
// core's `start` and `count`; binds each tensor it streams, the first with `tensor_accessor(T, 0,
// T_addr, page)` and each next with `tensor_accessor.chained(U, T, U_addr, page)` (its
// TensorAccessorArgs follow T's, as the SDK chains them); and records both in the function's
// kernel config: `runtime_args [...] compile_args [T at 0, U at 2]` (offsets from the accessors'
// word counts). The host function gains the moved lets and the scalar bit patterns, the host plan
// a `buffer T address T_addr` per tensor.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module bind_runtime_args(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
