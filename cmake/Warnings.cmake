# tk_options: warnings (clean under -Werror in the ci preset) and optional sanitizers for project code.
add_library(tk_options INTERFACE)
target_compile_options(tk_options INTERFACE -Wall -Wextra -Wpedantic -Wnon-virtual-dtor
                                            -Wno-missing-field-initializers)
# GCC's spelling; clang (the fuzz preset) has no -Wshadow=local and warns about the flag itself.
target_compile_options(tk_options INTERFACE $<$<CXX_COMPILER_ID:GNU>:-Wshadow=local>)
# clang (the asan and fuzz presets) on Spirit X3's grammars: `a > b >> c` is X3's expect-then-
# sequence, read as meant, and BOOST_SPIRIT_DEFINE declares the rule ids it defines as classes.
target_compile_options(tk_options INTERFACE
  $<$<CXX_COMPILER_ID:Clang>:-Wno-overloaded-shift-op-parentheses -Wno-mismatched-tags>)
if(TILEKIT_WERROR)
  target_compile_options(tk_options INTERFACE -Werror)
endif()
if(TILEKIT_SANITIZE)
  # Also the flags the emulator compiles kernels with (runtime/tt/CMakeLists.txt, src/jit.cpp).
  set(TILEKIT_SANITIZE_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer
                             -fno-sanitize-recover=undefined)
  target_compile_options(tk_options INTERFACE ${TILEKIT_SANITIZE_FLAGS})
  target_link_options(tk_options INTERFACE -fsanitize=address,undefined)
endif()
