# The fuzz build (TILEKIT_FUZZ, the fuzz preset; docs/fuzzing.md): every library compiled for
# libFuzzer's coverage feedback, AddressSanitizer and UBSan (a UB report aborts, so it is a
# finding), with libstdc++'s assertions; the harnesses in fuzz/ link libFuzzer itself.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "TILEKIT_FUZZ needs clang: libFuzzer is part of clang's runtime, but the "
                      "compilers are ${CMAKE_CXX_COMPILER} (${CMAKE_CXX_COMPILER_ID}) and "
                      "${CMAKE_C_COMPILER} (${CMAKE_C_COMPILER_ID}). Configure with "
                      "`cmake --preset fuzz` (clang++-19) in a fresh build directory.")
endif()

include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer,address,undefined)
set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=fuzzer,address,undefined)
check_cxx_source_compiles([[
#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
]] TILEKIT_HAVE_LIBFUZZER)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(NOT TILEKIT_HAVE_LIBFUZZER)
  message(FATAL_ERROR "${CMAKE_CXX_COMPILER} cannot link a libFuzzer harness with ASan and UBSan: "
                      "install clang's runtime libraries (Debian: libclang-rt-19-dev; bash "
                      "scripts/setup.sh installs it)")
endif()

add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                    -fno-omit-frame-pointer -D_GLIBCXX_ASSERTIONS)
add_link_options(-fsanitize=address,undefined)
