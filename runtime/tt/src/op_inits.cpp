// The unpacker's and the math thread's operation, as the last init configured them, and the check
// at each call (tk_emulator/op_inits.hpp). The facts, init by init, are in the SDK mirror's headers
// (runtime/tt/include/api/compute/*.h), which pass the keys; the pairs are tt-metal a8c5af0f5a26's
// api/compute headers' llk_unpack_*_init / llk_math_*_init calls.
#include "tk_emulator/op_inits.hpp"

#include <string>

#include "compute_ctx.hpp"
#include "state.hpp"

namespace tk::rt::emu {
using namespace compute_detail;

void op_init(const char* init, const char* unpack, const char* math) {
  Compute c = ctx(init);
  if (unpack) {
    c.dst.unpack_for = unpack;
    c.dst.unpack_by = init;
  }
  if (math) {
    c.dst.math_for = math;
    c.dst.math_by = init;
  }
}

void sfpu_constants_loaded(const char* init) {
  Compute c = ctx(init);
  c.dst.exp_approx = DstState::ExpApprox::None;
  c.dst.exp_approx_cleared_by = init;
}

namespace {
void check_side(const char* call, const char* side, const std::string& have, const std::string& by,
                const char* want, const char* init) {
  if (have == want)
    return;
  const std::string state =
      have.empty() ? std::string(" is not configured for any operation (no init since the "
                                 "kernel started)")
                   : " is configured for " + have + " (by " + by + ")";
  fail(std::string(call) + ": the " + side + state + ", not for " + want + "; call " + init +
       " first");
}
} // namespace

void op_call(const char* call, const char* unpack, const char* math, const char* init) {
  Compute c = ctx(call);
  check_side(call, "unpacker", c.dst.unpack_for, c.dst.unpack_by, unpack, init);
  check_side(call, "math thread", c.dst.math_for, c.dst.math_by, math, init);
}

} // namespace tk::rt::emu
