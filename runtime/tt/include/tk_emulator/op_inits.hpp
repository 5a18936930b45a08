// Which operation the unpacker and the math thread were last initialised for, checked at each call
// that runs their programs (docs/emulator.md, "Inits"). On the device an init programs the
// unpacker's and the math thread's MOPs and address modes for one operation (tt-llk's
// llk_unpack_*_init, llk_math_*_init); a call runs whatever they hold, so mul_tiles after
// add_tiles_init adds, and copy_tile after reduce_init runs the reduce program. The keys are short
// descriptions of what the SDK's init configured ("A", "AB bcast COL", "datacopy", "ELWSUB bcast
// COL", "reduce MAX REDUCE_ROW", ...); the SDK mirror's headers pass them.
#pragma once

namespace tk::rt::emu {

/// An init named `init` configured the unpacker for `unpack` and the math thread for `math`; a
/// nullptr leaves that side as it was.
void op_init(const char* init, const char* unpack, const char* math);

/// A call named `call` runs the unpacker's program for `unpack` and the math thread's for `math`:
/// an error unless the last inits configured them so; `init` names an init that does.
void op_call(const char* call, const char* unpack, const char* math, const char* init);

/// An SFPU init named `init` loads the SFPU's programmable constants (vConstFloatPrgm0..2, the
/// registers the approximate exp's init fills): an exp_tile<true> after it needs its init again.
void sfpu_constants_loaded(const char* init);

} // namespace tk::rt::emu
