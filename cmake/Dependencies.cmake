# Every dependency is a Debian package found through its own CMake config (scripts/setup.sh installs them).
find_package(Boost 1.81 REQUIRED CONFIG COMPONENTS context)
find_package(fmt REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(Threads REQUIRED)

# Clang/LLVM 19, pinned by path: an unpinned find_package(Clang) picks clang-14's config.
set(TILEKIT_LLVM_MAJOR 19 CACHE STRING "LLVM/Clang major version used for clang-format and LibTooling")
find_package(LLVM REQUIRED CONFIG PATHS /usr/lib/llvm-${TILEKIT_LLVM_MAJOR}/lib/cmake/llvm NO_DEFAULT_PATH)
find_package(Clang REQUIRED CONFIG PATHS /usr/lib/llvm-${TILEKIT_LLVM_MAJOR}/lib/cmake/clang NO_DEFAULT_PATH)
if(NOT LLVM_VERSION_MAJOR EQUAL TILEKIT_LLVM_MAJOR)
  message(FATAL_ERROR "TileKit wants LLVM ${TILEKIT_LLVM_MAJOR}, found ${LLVM_PACKAGE_VERSION}")
endif()
set(TILEKIT_CLANG_RESOURCE_DIR "${LLVM_LIBRARY_DIR}/clang/${LLVM_VERSION_MAJOR}")

if(NOT TARGET tk_llvm_clang)
  add_library(tk_llvm_clang INTERFACE)
  target_include_directories(tk_llvm_clang SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
  separate_arguments(_tk_llvm_defs NATIVE_COMMAND "${LLVM_DEFINITIONS}")
  target_compile_definitions(tk_llvm_clang INTERFACE ${_tk_llvm_defs})
  # Both: the clang-cpp imported target does not carry libLLVM.
  target_link_libraries(tk_llvm_clang INTERFACE clang-cpp LLVM)
endif()

# clang::format alone, from Debian's static component libraries (libclang-19-dev, llvm-19-dev)
# rather than libclang-cpp and libLLVM: loading those two shared libraries made every ttgen start
# cost about 0.15 s of CPU. The archives reference each other, so they are linked as a group; the
# linker takes only the objects clang::format reaches. A binary links either this or
# tk_llvm_clang (LibTooling), never both: two copies of LLVM's globals would clash at start-up.
if(NOT TARGET tk_clang_format)
  add_library(tk_clang_format INTERFACE)
  target_include_directories(tk_clang_format SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
  target_compile_definitions(tk_clang_format INTERFACE ${_tk_llvm_defs})
  set(_tk_archives "")
  foreach(lib IN ITEMS clangFormat clangToolingInclusions clangToolingCore clangRewrite clangLex
                       clangBasic LLVMFrontendOpenMP LLVMTargetParser LLVMSupport LLVMDemangle)
    add_library(tk_static_${lib} STATIC IMPORTED)
    set_target_properties(tk_static_${lib} PROPERTIES IMPORTED_LOCATION ${LLVM_LIBRARY_DIR}/lib${lib}.a)
    list(APPEND _tk_archives tk_static_${lib})
  endforeach()
  list(JOIN _tk_archives "," _tk_archives)
  target_link_libraries(tk_clang_format INTERFACE "$<LINK_GROUP:RESCAN,${_tk_archives}>"
                                                  Threads::Threads ${CMAKE_DL_LIBS})
endif()

if(TILEKIT_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
endif()
if(TILEKIT_BUILD_BENCH)
  find_package(benchmark REQUIRED)
  set(BLA_VENDOR OpenBLAS)
  find_package(BLAS REQUIRED)
endif()
