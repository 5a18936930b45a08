# tk_options: warnings (clean under -Werror in the ci preset) and optional sanitizers for project code.
add_library(tk_options INTERFACE)
target_compile_options(tk_options INTERFACE -Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor
                                            -Wno-missing-field-initializers)
if(TILEKIT_WERROR)
  target_compile_options(tk_options INTERFACE -Werror)
endif()
if(TILEKIT_SANITIZE)
  target_compile_options(tk_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                              -fno-sanitize-recover=undefined)
  target_link_options(tk_options INTERFACE -fsanitize=address,undefined)
endif()
