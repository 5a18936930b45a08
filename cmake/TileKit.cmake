# tilekit_add_kernel(): builds a .tk file like any other source. Included by TileKit's own root
# CMakeLists.txt (in-tree and add_subdirectory() use) and by TileKitConfig.cmake (find_package).
#
#   tilekit_add_kernel(<target> <file.tk> [TARGETS tt cpu] [OPTIONS <ttgen flags>...])
#
# runs `ttgen <file.tk> --target=tt|cpu|all -o <dir> <OPTIONS>` at build time and compiles what it
# writes (docs/cmake.md) into the static library <target>, whose PUBLIC include path holds the
# generated header <stem>.hpp.
include_guard(GLOBAL)

# Whether ttgen generates TT-Metalium code (--target=tt). The TT code generator's author flips
# this to ON when it lands: the default TARGETS becomes "tt cpu", and the examples, the e2e tests
# and the demo pick TT up through the TILEKIT_TARGETS property, with no other change.
set(TILEKIT_TT_CODEGEN ON)

# The templates ttgen renders (passed to it as $TILEKIT_TEMPLATE_DIR; a change to any of them
# re-runs it). In-tree they sit beside cmake/; TileKitConfig.cmake sets the installed location
# before including this file.
if(NOT DEFINED TILEKIT_TEMPLATE_DIR)
  get_filename_component(TILEKIT_TEMPLATE_DIR "${CMAKE_CURRENT_LIST_DIR}/../templates" ABSOLUTE)
endif()

# Global properties, not variables: after add_subdirectory() of a TileKit checkout the function is
# called from directories that do not see the variables of TileKit's scope.
set_property(GLOBAL PROPERTY TILEKIT_TT_CODEGEN ${TILEKIT_TT_CODEGEN})
set_property(GLOBAL PROPERTY TILEKIT_TEMPLATE_DIR "${TILEKIT_TEMPLATE_DIR}")

function(tilekit_add_kernel target source)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "" "TARGETS;OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tilekit_add_kernel(${target}): unexpected arguments '${ARG_UNPARSED_ARGUMENTS}'"
                        " (usage: tilekit_add_kernel(<target> <file.tk> [TARGETS tt cpu] [OPTIONS ...]))")
  endif()
  if(NOT TARGET TileKit::ttgen)
    message(FATAL_ERROR "tilekit_add_kernel(${target}): TileKit::ttgen is not defined; "
                        "use find_package(TileKit) or add_subdirectory() of a TileKit checkout first")
  endif()

  get_property(tt_codegen GLOBAL PROPERTY TILEKIT_TT_CODEGEN)
  get_property(template_dir GLOBAL PROPERTY TILEKIT_TEMPLATE_DIR)
  set(targets ${ARG_TARGETS})
  if(NOT targets)
    set(targets cpu)
    if(tt_codegen)
      set(targets tt cpu)
    endif()
  endif()
  list(REMOVE_DUPLICATES targets)
  foreach(t IN LISTS targets)
    if(NOT t MATCHES "^(tt|cpu)$")
      message(FATAL_ERROR "tilekit_add_kernel(${target}): unknown target '${t}' (TARGETS takes tt and/or cpu)")
    endif()
  endforeach()
  if("tt" IN_LIST targets AND NOT tt_codegen)
    message(FATAL_ERROR "tilekit_add_kernel(${target}): this TileKit does not generate TT-Metalium "
                        "code yet (TILEKIT_TT_CODEGEN is OFF); use TARGETS cpu")
  endif()
  if("tt" IN_LIST targets AND "cpu" IN_LIST targets)
    set(ttgen_target all)
  else()
    set(ttgen_target ${targets})
  endif()

  get_filename_component(tk_file "${source}" ABSOLUTE)
  if(NOT EXISTS "${tk_file}")
    message(FATAL_ERROR "tilekit_add_kernel(${target}): ${tk_file} does not exist")
  endif()
  get_filename_component(stem "${tk_file}" NAME_WE)
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/tilekit/${target}")

  set(outputs "${dir}/${stem}.hpp")
  set(sources "")
  if("cpu" IN_LIST targets)
    list(APPEND sources "${dir}/${stem}_cpu.cpp")
  endif()
  if("tt" IN_LIST targets)
    list(APPEND sources "${dir}/${stem}_tt.cpp")
  endif()
  list(APPEND outputs ${sources})

  # ttgen reads its templates at run time from $TILEKIT_TEMPLATE_DIR (docs/codegen.md): every
  # file there is a dependency. Globbed when CMake runs; CONFIGURE_DEPENDS re-globs at build time,
  # so an added template is seen too. In-tree the directory also holds the engine's C++ sources,
  # which reach ttgen through its own target instead.
  file(GLOB_RECURSE template_files CONFIGURE_DEPENDS "${template_dir}/*")
  list(FILTER template_files EXCLUDE REGEX "/(engine|render)/|\\.(cpp|hpp|h|txt)$")

  file(RELATIVE_PATH shown "${CMAKE_BINARY_DIR}" "${dir}")
  add_custom_command(
    OUTPUT ${outputs}
    # The kernels/ tree is rewritten whole: a kernel removed from the .tk leaves no stale file.
    COMMAND ${CMAKE_COMMAND} -E rm -rf "${dir}/kernels"
    COMMAND ${CMAKE_COMMAND} -E env "TILEKIT_TEMPLATE_DIR=${template_dir}"
            "$<TARGET_FILE:TileKit::ttgen>" "${tk_file}" --target=${ttgen_target} -o "${dir}" ${ARG_OPTIONS}
    DEPENDS "${tk_file}" TileKit::ttgen "$<TARGET_FILE:TileKit::ttgen>" ${template_files}
    COMMENT "ttgen ${stem}.tk (${ttgen_target}) -> ${shown}"
    VERBATIM COMMAND_EXPAND_LISTS)

  add_library(${target} STATIC ${sources} "${dir}/${stem}.hpp")
  target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${dir}>")
  target_compile_features(${target} PUBLIC cxx_std_20)
  # Generated code uses no name the SDK has deprecated: one would be a TileKit bug, caught here.
  target_compile_options(${target} PRIVATE
                         $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Werror=deprecated-declarations>)
  target_link_libraries(${target} PUBLIC TileKit::runtime)
  if("cpu" IN_LIST targets)
    target_link_libraries(${target} PUBLIC TileKit::cpu_runtime)
    # In a TileKit build with TILEKIT_CPU_NATIVE (the runtime built for this machine), the
    # generated loops too, so that their element-wise epilogues run as wide as the machine allows
    # (8 floats with AVX2 instead of SSE's 4). -ffp-contract=off keeps every result bit for bit
    # what the portable build computes: GCC would otherwise fuse a * b + c into one FMA.
    get_property(native GLOBAL PROPERTY TILEKIT_CPU_NATIVE)
    if(native)
      set_source_files_properties("${dir}/${stem}_cpu.cpp" TARGET_DIRECTORY ${target}
                                  PROPERTIES COMPILE_OPTIONS "-march=native;-ffp-contract=off")
    endif()
  endif()
  if("tt" IN_LIST targets)
    # PUBLIC: whoever calls run_tt needs the MeshDevice API to create the device.
    target_link_libraries(${target} PUBLIC TileKit::emulator)
    # Absolute, so run_tt finds its kernels from any working directory (docs/cmake.md).
    set_source_files_properties("${dir}/${stem}_tt.cpp" TARGET_DIRECTORY ${target}
                                PROPERTIES COMPILE_DEFINITIONS "TILEKIT_KERNEL_DIR=\"${dir}/kernels\"")
  endif()
  set_property(TARGET ${target} APPEND PROPERTY ADDITIONAL_CLEAN_FILES "${dir}/kernels")
  # What was generated and where: the e2e tests and the demo read TILEKIT_TARGETS.
  set_target_properties(${target} PROPERTIES TILEKIT_TARGETS "${targets}"
                                             TILEKIT_GENERATED_DIR "${dir}"
                                             TILEKIT_SOURCE "${tk_file}")
endfunction()
