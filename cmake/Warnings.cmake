# tk_options: warnings (clean under -Werror in the ci preset) and optional sanitizers for project code.
add_library(tk_options INTERFACE)
target_compile_options(tk_options INTERFACE -Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor
                                            -Wno-missing-field-initializers)
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
